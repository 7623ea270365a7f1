// A second translation unit using the header-only wrapper: with every function inline, linking
// this and test_registry.cpp together must not give duplicate symbols.
#include "fixtures.hpp"

namespace fixtures {

toolregistry::Registry make_registry() {
    toolregistry::Registry registry;
    registry.register_tools(kShapes);
    return registry;
}

}  // namespace fixtures
