package dev.toolregistry.langchain4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.service.AiServices;
import dev.toolregistry.DiscoveryOptions;
import dev.toolregistry.Registry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** LangChain4j's own tool loop (AiServices) with a scripted chat model: no network. */
class ToolProviderTest {
    interface Assistant {
        String chat(String message);
    }

    /** Answers each request with the next step of a script, and records what it was sent. */
    static final class ScriptedModel implements ChatModel {
        final List<ChatRequest> requests = new CopyOnWriteArrayList<>();
        final List<Function<ChatRequest, AiMessage>> script;

        ScriptedModel(List<Function<ChatRequest, AiMessage>> script) {
            this.script = new ArrayList<>(script);
        }

        @Override
        public ChatResponse doChat(ChatRequest request) {
            requests.add(request);
            return ChatResponse.builder().aiMessage(script.remove(0).apply(request)).build();
        }
    }

    static List<String> toolNames(ChatRequest r) {
        return r.toolSpecifications().stream().map(ToolSpecification::name).toList();
    }

    static ToolExecutionResultMessage lastResult(ChatRequest r) {
        List<ChatMessage> m = r.messages();
        return (ToolExecutionResultMessage) m.get(m.size() - 1);
    }

    static Registry catalog(List<String> calls) {
        Registry r = new Registry();
        r.registerFunction("{\"name\": \"get_weather\", \"description\": \"Current weather for a city.\", \"metadata\": {\"defer\": true},"
                + " \"parameters\": {\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\", \"description\": \"The city\"}}, \"required\": [\"city\"]}}",
                args -> {
                    calls.add("get_weather " + args);
                    return "sunny, 21 C";
                });
        r.registerFunction("{\"name\": \"send_email\", \"description\": \"Send an email to a recipient.\", \"metadata\": {\"defer\": true},"
                + " \"parameters\": {\"type\": \"object\", \"properties\": {\"to\": {\"type\": \"string\"}, \"body\": {\"type\": \"string\"}}, \"required\": [\"to\"]}}",
                args -> {
                    calls.add("send_email " + args);
                    return "sent";
                });
        r.register("{\"name\": \"convert_currency\", \"description\": \"Convert an amount between currencies.\", \"metadata\": {\"defer\": true}}");
        r.registerFunction("{\"name\": \"get_time\", \"description\": \"The current time.\"}", args -> "12:00");
        return r;
    }

    @Test
    void eachUserMessageGetsTheToolsDiscoverFindsAndCallsRunThroughTheRegistry() {
        List<String> calls = new CopyOnWriteArrayList<>();
        try (Registry registry = catalog(calls)) {
            ScriptedModel model = new ScriptedModel(List.of(
                    req -> AiMessage.from(ToolExecutionRequest.builder().id("c1").name("get_weather").arguments("{\"city\": \"Paris\"}").build()),
                    req -> AiMessage.from("It is " + lastResult(req).text() + " in Paris."),
                    req -> AiMessage.from(ToolExecutionRequest.builder().id("c2").name("send_email").arguments("{\"body\": \"hi\"}").build()),
                    req -> AiMessage.from(ToolExecutionRequest.builder().id("c3").name("send_email").arguments("{\"to\": \"bob\", \"body\": \"hi\"}").build()),
                    req -> AiMessage.from("Done: " + lastResult(req).text())));
            Assistant assistant = AiServices.builder(Assistant.class)
                    .chatModel(model)
                    .toolProvider(ToolRegistryToolProvider.builder(registry).topK(2).discovery(DiscoveryOptions.reference())
                            .alwaysInclude("get_time").build())
                    .build();

            assertEquals("It is sunny, 21 C in Paris.", assistant.chat("What's the weather in Paris?"));
            List<String> first = toolNames(model.requests.get(0));
            assertTrue(first.contains("get_weather") && first.contains("get_time"), first.toString());
            assertFalse(first.contains("send_email") || first.contains("convert_currency"), first.toString());
            ToolSpecification weather = model.requests.get(0).toolSpecifications().stream()
                    .filter(s -> s.name().equals("get_weather")).findFirst().orElseThrow();
            assertEquals("Current weather for a city.", weather.description());
            assertEquals(List.of("city"), weather.parameters().required());
            assertEquals(List.of("get_weather {\"city\":\"Paris\"}"), calls);

            assertEquals("Done: sent", assistant.chat("Please send an email to bob"));
            List<String> second = toolNames(model.requests.get(2));
            assertTrue(second.contains("send_email"), second.toString());
            assertFalse(second.contains("get_weather"), second.toString());
            // The first call broke the schema: the model read an error result and tried again.
            String error = lastResult(model.requests.get(3)).text();
            assertTrue(error.startsWith("Error: ") && error.contains("to"), error);
            assertEquals("send_email {\"to\":\"bob\",\"body\":\"hi\"}", calls.get(1));
            assertEquals(2, calls.size());
        }
    }
}
