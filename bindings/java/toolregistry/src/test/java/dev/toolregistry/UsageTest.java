package dev.toolregistry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Usage through the binding (issue 52): {@link Registry#recordUsage(List)} teaches the registry a
 * habit and a discover brings the partner in with {@link Hit#broughtIn()}; what does not count; bad
 * input throws and records nothing; the usage file keeps the counts across a restart.
 */
class UsageTest {
    static final String QUERY = "add an agenda item for tomorrow";
    static final String REASON = "used with `add_agenda` in 12 of its 15 tasks";

    /** The catalog of tests/it/usage.rs: an agenda tool whose tasks mostly start with a login step. */
    static String tools() {
        List<String> tools = new ArrayList<>(List.of(
                "{\"name\": \"add_agenda\", \"description\": \"Add an agenda item to the user's schedule.\"}",
                "{\"name\": \"get_user_token\", \"description\": \"Get the user token by username and password.\"}",
                "{\"name\": \"list_files\", \"description\": \"List the files of a folder.\"}",
                "{\"name\": \"send_email\", \"description\": \"Send an email message.\"}"));
        for (int i = 0; i < 8; i++) {
            tools.add("{\"name\": \"agenda_tool_" + i + "\", \"description\": \"Agenda item helper number " + i
                    + ": works on an agenda item.\"}");
        }
        return "[" + String.join(",", tools) + "]";
    }

    static Registry registry(RegistryOptions options) {
        Registry r = options == null ? new Registry() : new Registry(options);
        r.register(tools());
        return r;
    }

    static void loginHabit(Registry r) {
        for (int i = 0; i < 12; i++) {
            assertEquals(2, r.recordUsage("add_agenda", "get_user_token"));
        }
        for (int i = 0; i < 3; i++) {
            assertEquals(1, r.recordUsage(List.of("add_agenda")));
        }
        for (int i = 0; i < 10; i++) {
            assertEquals(1, r.recordUsageJson("[\"list_files\"]"));
        }
    }

    static List<String> broughtIn(Registry r, DiscoveryOptions options) {
        try (Discoverer d = r.discoverer(options)) {
            return d.discover(QUERY, 10).stream().filter(h -> h.broughtIn() != null)
                    .map(h -> h.name() + ": " + h.broughtIn()).toList();
        }
    }

    @Test
    void aRecordedHabitBringsThePartnerIn() {
        try (Registry r = registry(null)) {
            assertEquals(List.of(), broughtIn(r, new DiscoveryOptions()));
            loginHabit(r);
            assertEquals(List.of("get_user_token: " + REASON), broughtIn(r, new DiscoveryOptions()));
            assertEquals(List.of(), broughtIn(r, new DiscoveryOptions().usage(false)));
            UsageStatus s = r.usageStatus();
            assertEquals(25, s.tasks());
            assertEquals(3, s.tools());
            assertFalse(s.recording());
            assertNull(s.path());
            assertTrue(s.memoryBytes() > 0);
        }
    }

    @Test
    void unknownRepeatedAndEmptyNamesDoNotCountAndBadInputThrows() {
        try (Registry r = registry(null)) {
            assertEquals(0, r.recordUsage(List.of()));
            assertEquals(0, r.recordUsage("no_such_tool", ""));
            assertEquals(1, r.recordUsage("add_agenda", "add_agenda", "nope"));
            ToolRegistryException json = assertThrows(ToolRegistryException.class, () -> r.recordUsageJson("[\"add_agenda\""));
            assertEquals(Status.INVALID_JSON, json.status());
            ToolRegistryException type = assertThrows(ToolRegistryException.class, () -> r.recordUsageJson("[\"add_agenda\", 7]"));
            assertEquals(Status.INVALID_ARGUMENT, type.status());
            assertTrue(type.getMessage().contains("usage[1]: expected a string, got a number"), type.getMessage());
            ToolRegistryException utf8 = assertThrows(ToolRegistryException.class, () -> r.recordUsage("add_agenda", "\ud800"));
            assertEquals(Status.INVALID_UTF8, utf8.status());
            assertEquals(1, r.usageStatus().tasks());
        }
    }

    @Test
    void theUsageFileKeepsTheCountsAcrossARestart(@TempDir Path dir) {
        String path = dir.resolve("usage.json").toString();
        try (Registry r = registry(null)) {
            r.enableUsage(path);
            loginHabit(r);
            r.saveUsage();
            assertTrue(r.usageStatus().recording());
            assertEquals(path, r.usageStatus().path());
        }
        try (Registry again = registry(new RegistryOptions().usage(path))) {
            assertEquals(25, again.usageStatus().tasks());
            assertEquals(List.of("get_user_token: " + REASON), broughtIn(again, new DiscoveryOptions()));
        }
    }
}
