package dev.toolregistry.springai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.toolregistry.DiscoveryOptions;
import dev.toolregistry.Registry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.tool.ToolCallback;

/** Spring AI's own tool loop (ChatClient and its tool-calling advisor) with a scripted chat model: no network. */
class ToolCallbacksTest {
    /** Answers each prompt with the next step of a script, and records what it was sent. */
    static final class ScriptedModel implements ChatModel {
        final List<Prompt> prompts = new CopyOnWriteArrayList<>();
        final List<Function<Prompt, AssistantMessage>> script;

        ScriptedModel(List<Function<Prompt, AssistantMessage>> script) {
            this.script = new ArrayList<>(script);
        }

        /** Tool-calling options, as a real provider's model has: ChatClient puts the callbacks there. */
        @Override
        public ChatOptions getOptions() {
            return ToolCallingChatOptions.builder().build();
        }

        @Override
        public ChatResponse call(Prompt prompt) {
            prompts.add(prompt);
            return new ChatResponse(List.of(new Generation(script.remove(0).apply(prompt))));
        }
    }

    static AssistantMessage toolCall(String id, String name, String args) {
        return AssistantMessage.builder().content("").toolCalls(List.of(new AssistantMessage.ToolCall(id, "function", name, args))).build();
    }

    static List<String> toolNames(Prompt p) {
        List<String> names = new ArrayList<>();
        if (p.getOptions() instanceof ToolCallingChatOptions o) {
            for (ToolCallback c : o.getToolCallbacks()) {
                names.add(c.getToolDefinition().name());
            }
        }
        return names;
    }

    static String lastToolResponse(Prompt p) {
        List<Message> m = p.getInstructions();
        ToolResponseMessage r = (ToolResponseMessage) m.get(m.size() - 1);
        return r.getResponses().get(0).responseData();
    }

    @Test
    void chatClientRunsTheDiscoveredToolsThroughTheRegistry() {
        List<String> calls = new CopyOnWriteArrayList<>();
        try (Registry registry = new Registry()) {
            registry.registerFunction("{\"name\": \"get_weather\", \"description\": \"Current weather for a city.\", \"metadata\": {\"defer\": true},"
                    + " \"parameters\": {\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}}, \"required\": [\"city\"]}}",
                    args -> {
                        calls.add(args);
                        return "rain, 9 C";
                    });
            registry.register("{\"name\": \"send_email\", \"description\": \"Send an email to a recipient.\", \"metadata\": {\"defer\": true}}");
            registry.register("{\"name\": \"convert_currency\", \"description\": \"Convert an amount between currencies.\", \"metadata\": {\"defer\": true}}");
            ToolRegistryToolCallbacks tools = new ToolRegistryToolCallbacks(registry, DiscoveryOptions.reference());

            ScriptedModel model = new ScriptedModel(List.of(
                    p -> toolCall("c1", "get_weather", "{\"city\": 7}"),
                    p -> toolCall("c2", "get_weather", "{\"city\": \"Bergen\"}"),
                    p -> new AssistantMessage("Bergen: " + lastToolResponse(p))));
            String question = "What is the weather in Bergen?";
            // The tool loop is Spring AI's: ChatClient registers its ToolCallingAdvisor by itself.
            ChatClient client = ChatClient.create(model);
            String answer = client.prompt(question).tools((Object[]) tools.discover(question, 2)).call().content();

            assertEquals("Bergen: rain, 9 C", answer);
            assertEquals(List.of("get_weather"), toolNames(model.prompts.get(0)));
            String error = lastToolResponse(model.prompts.get(1));
            assertTrue(error.startsWith("Error: "), error);
            assertEquals(List.of("{\"city\":\"Bergen\"}"), calls);
            assertEquals(3, model.prompts.size());
        }
    }

    @Test
    void callbacksDescribeTheRegistryTools() {
        try (Registry registry = new Registry()) {
            registry.register("[{\"name\": \"a_tool\", \"description\": \"First.\"}, {\"name\": \"b_tool\", \"description\": \"Second.\", \"metadata\": {\"defer\": true}}]");
            registry.enableDiscovery(DiscoveryOptions.reference());
            ToolRegistryToolCallbacks tools = new ToolRegistryToolCallbacks(registry);
            List<String> all = new ArrayList<>();
            for (ToolCallback c : tools.getToolCallbacks()) {
                all.add(c.getToolDefinition().name());
            }
            assertTrue(all.containsAll(List.of("a_tool", "b_tool", "discover_tools")), all.toString());
            assertFalse(java.util.Arrays.stream(tools.loaded()).anyMatch(c -> c.getToolDefinition().name().equals("b_tool")));
            ToolCallback search = tools.searchTool();
            assertTrue(search.getToolDefinition().inputSchema().contains("query"));
            assertTrue(search.call("{\"query\": \"second\"}").contains("b_tool"));
            assertEquals("{\"type\":\"object\",\"properties\":{}}", tools.named("a_tool")[0].getToolDefinition().inputSchema());
            assertTrue(tools.named("a_tool")[0].call("{}").startsWith("Error: "), "no function: an error result, not an exception");
        }
    }
}
