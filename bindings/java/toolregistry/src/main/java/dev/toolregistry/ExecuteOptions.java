package dev.toolregistry;

import java.util.concurrent.Executor;

/** Options of {@code execute} and {@code executeAsync}; members left unset keep the defaults. */
public final class ExecuteOptions {
    private ApiFormat apiFormat;
    private Boolean includeAssistant;
    private Integer parallel;
    private Executor executor;

    /** Default options: the format detected, calls one after another. */
    public ExecuteOptions() {}

    /** Reads the calls in this format instead of detecting it. */
    public ExecuteOptions apiFormat(ApiFormat apiFormat) {
        this.apiFormat = apiFormat;
        return this;
    }

    /** Also answers the rebuilt assistant turn first (what the provider needs back). */
    public ExecuteOptions includeAssistant(boolean includeAssistant) {
        this.includeAssistant = includeAssistant;
        return this;
    }

    /**
     * {@code execute} only: up to this many calls at once (1..64, default 1), on threads the
     * library starts. {@code executeAsync} ignores it: every call of a batch is in flight at once.
     */
    public ExecuteOptions parallel(int parallel) {
        this.parallel = parallel;
        return this;
    }

    /**
     * {@code executeAsync} only: where plain {@link ToolFunction}s run (default: this package's
     * pool of daemon threads, one per running call).
     */
    public ExecuteOptions executor(Executor executor) {
        this.executor = executor;
        return this;
    }

    Executor executor() {
        return executor;
    }

    /** The options as the library's JSON, or null for the defaults. */
    String toJson() {
        return new Json.Obj()
                .put("api_format", apiFormat)
                .put("include_assistant", includeAssistant)
                .put("parallel", parallel)
                .orNull();
    }
}
