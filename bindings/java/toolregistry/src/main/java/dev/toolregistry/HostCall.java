package dev.toolregistry;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One call of a plan ({@link Registry#prepareCalls}) that the host must run.
 *
 * @param id the call's id, unique within the plan: its result names it
 * @param name the registered tool ({@code call_deferred}'s target already resolved)
 * @param argumentsJson the arguments, compact JSON of an object, checked against the schema
 * @param concurrencySafe false: run it alone, after the earlier calls finished and before later ones start
 */
public record HostCall(String id, String name, String argumentsJson, boolean concurrencySafe) {
    private static final Set<String> RAW = Set.of("arguments");

    /**
     * The calls of a plan that the host must run, in call order (the others the library answered).
     *
     * @throws ToolRegistryException ({@link Status#INVALID_ARGUMENT}) when the text is no plan
     */
    public static List<HostCall> fromPlan(String planJson) {
        if (planJson == null) {
            throw new NullPointerException("planJson is null");
        }
        List<HostCall> out = new ArrayList<>();
        try {
            Map<String, Object> plan = Json.object(planJson, RAW);
            Object calls = plan.get("calls");
            if (!(calls instanceof List)) {
                throw new Json.ParseException("the plan has no calls");
            }
            int i = 0;
            for (Map<String, Object> c : Json.objects(calls)) {
                if ("host".equals(c.get("run"))) {
                    String id = Json.str(c, "id");
                    String name = Json.str(c, "name");
                    String args = Json.str(c, "arguments");
                    if (id == null || name == null || args == null) {
                        throw new Json.ParseException("calls[" + i + "] lacks its id, name or arguments");
                    }
                    out.add(new HostCall(id, name, args, !Boolean.FALSE.equals(c.get("concurrency_safe"))));
                }
                i++;
            }
        } catch (Json.ParseException e) {
            throw new ToolRegistryException(Status.INVALID_ARGUMENT, "plan: " + e.getMessage());
        }
        return Collections.unmodifiableList(out);
    }
}
