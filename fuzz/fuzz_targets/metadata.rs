//! Metadata JSON for `set_metadata`: the first byte picks the tool (or an unknown name).
//!
//! Oracles: success changes exactly the given fields and keeps the index equal to a rebuild;
//! failure changes nothing.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolregistry::{MetadataUpdate, ToolMetadata};
use toolregistry_fuzz::{assert_input_error, fixture_registry, shared_fixture, snapshot};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let registry = fixture_registry();
    let names = registry.names().unwrap();
    let name = names
        .get(pick as usize % (names.len() + 1))
        .cloned()
        .unwrap_or_else(|| "no_such_tool".into());
    let before_tool = registry.tool(&name).unwrap();
    let before = snapshot(&registry);
    match registry.set_metadata_json(&name, text) {
        Ok(()) => {
            assert!(
                registry.verify_index().unwrap(),
                "index drifted after set_metadata"
            );
            let update = MetadataUpdate::from_json(text).expect("accepted update parses");
            let mut want: ToolMetadata = before_tool
                .expect("updated a registered tool")
                .metadata()
                .clone();
            update.apply_to(&mut want);
            let mut seen = std::collections::HashSet::new();
            want.tags.retain(|t| seen.insert(t.clone()));
            assert_eq!(registry.tool(&name).unwrap().unwrap().metadata(), &want);
            // Other tools are untouched.
            for other in names.iter().filter(|n| **n != name) {
                assert_eq!(
                    registry.tool(other).unwrap(),
                    shared_fixture().tool(other).unwrap()
                );
            }
        }
        Err(e) => {
            assert_input_error(&e);
            assert_eq!(
                before,
                snapshot(&registry),
                "failed set_metadata changed the registry"
            );
        }
    }
});
