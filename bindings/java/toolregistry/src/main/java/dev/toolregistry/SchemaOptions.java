package dev.toolregistry;

import java.util.Arrays;
import java.util.List;

/** Which tools' schemas {@link Registry#schemas(SchemaOptions)} answers, and in which format. */
public final class SchemaOptions {
    private Boolean includeDeferred;
    private ApiFormat apiFormat;
    private List<String> tags;
    private List<String> excludeTags;
    private List<String> names;

    /** Every enabled tool, deferred ones included, OpenAI chat format. */
    public SchemaOptions() {}

    /** False leaves deferred tools out (default true). */
    public SchemaOptions includeDeferred(boolean includeDeferred) {
        this.includeDeferred = includeDeferred;
        return this;
    }

    /** The provider format of the schemas (default OpenAI chat). */
    public SchemaOptions apiFormat(ApiFormat apiFormat) {
        this.apiFormat = apiFormat;
        return this;
    }

    /** Keeps tools carrying any of these tags. */
    public SchemaOptions tags(String... tags) {
        this.tags = Arrays.asList(tags.clone());
        return this;
    }

    /** Leaves out tools carrying any of these tags. */
    public SchemaOptions excludeTags(String... tags) {
        this.excludeTags = Arrays.asList(tags.clone());
        return this;
    }

    /** Exactly these tools, in this order, disabled ones included (the other filters ignored). */
    public SchemaOptions names(String... names) {
        this.names = Arrays.asList(names.clone());
        return this;
    }

    SchemaOptions copy() {
        SchemaOptions o = new SchemaOptions();
        o.includeDeferred = includeDeferred;
        o.apiFormat = apiFormat;
        o.tags = tags;
        o.excludeTags = excludeTags;
        o.names = names;
        return o;
    }

    String toJson(boolean strict) {
        return new Json.Obj()
                .put("include_deferred", includeDeferred)
                .put("api_format", apiFormat)
                .put("tags", tags)
                .put("exclude_tags", excludeTags)
                .put("names", names)
                .put("strict", strict ? Boolean.TRUE : null)
                .toString();
    }
}
