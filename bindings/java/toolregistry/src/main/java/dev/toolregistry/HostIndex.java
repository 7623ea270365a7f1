package dev.toolregistry;

import java.util.HashMap;
import java.util.Map;

/**
 * A registry's live host functions by registered name, for {@code executeAsync}, which runs a
 * plan's calls itself. An entry is added once the library accepted the registration and removed
 * when the library releases the function: the index never names a function the library no longer
 * holds. Shared by the registry and its conversations.
 */
final class HostIndex {
    private final Map<String, HostEntry> byName = new HashMap<>();
    private HostEntry fallback;

    /** Records {@code entry} under {@code name} ({@code null}: as the fallback), unless already released. */
    synchronized void add(HostEntry entry, String name) {
        if (entry.released) {
            return;
        }
        if (name == null) {
            fallback = entry;
            return;
        }
        entry.name = name;
        byName.put(name, entry);
    }

    synchronized void forget(HostEntry entry) {
        entry.released = true;
        if (entry.name != null && byName.get(entry.name) == entry) {
            byName.remove(entry.name);
        }
        if (fallback == entry) {
            fallback = null;
        }
    }

    /** The function that runs calls of {@code name}: its own, else the fallback; null when none. */
    synchronized HostEntry lookup(String name) {
        HostEntry e = byName.get(name);
        return e != null ? e : fallback;
    }
}
