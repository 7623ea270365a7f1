//! Checks a tool call's arguments against the tool's JSON Schema before the host runs it.
//!
//! A model that sends `{"to": "x"}` to a tool whose `to` is an array should hear about it in the
//! tool result and retry, rather than the host crash or misbehave on it. The check uses a real
//! JSON Schema validator (required properties, types, enums, nested objects, formats it knows).

use serde_json::Value;

/// How many schema violations one error result lists; the model needs the first few, not all.
const MAX_REPORTED: usize = 5;

/// A compiled parameters schema.
#[derive(Debug)]
pub struct ArgsValidator {
    inner: Option<jsonschema::Validator>,
}

impl ArgsValidator {
    /// Compiles a tool's parameters schema (compact JSON text).
    ///
    /// A schema the validator cannot compile (an unresolvable remote `$ref`, an unknown draft)
    /// checks nothing: the host still gets the call, as it would without this check.
    pub fn compile(parameters_json: &str) -> Self {
        let inner = serde_json::from_str::<Value>(parameters_json)
            .ok()
            .and_then(|schema| jsonschema::validator_for(&schema).ok());
        ArgsValidator { inner }
    }

    /// `Ok` when `args` conforms, else a one-line description of the first violations, each with
    /// the JSON pointer of the offending value: `/to: "x" is not of type "array"`.
    pub fn check(&self, args: &Value) -> Result<(), String> {
        let Some(validator) = &self.inner else {
            return Ok(());
        };
        if validator.is_valid(args) {
            return Ok(());
        }
        let mut parts = Vec::new();
        let mut more = 0usize;
        for error in validator.iter_errors(args) {
            if parts.len() == MAX_REPORTED {
                more += 1;
                continue;
            }
            let path = error.instance_path().to_string();
            parts.push(if path.is_empty() {
                error.to_string()
            } else {
                format!("{path}: {error}")
            });
        }
        let mut text = parts.join("; ");
        if more > 0 {
            text.push_str(&format!(" (and {more} more)"));
        }
        Err(text)
    }
}

#[cfg(test)]
mod tests {
    use super::ArgsValidator;
    use serde_json::json;

    #[test]
    fn names_the_path_of_each_violation() {
        let v = ArgsValidator::compile(
            r#"{"type":"object","properties":{"to":{"type":"array"},"n":{"enum":[1,2]}},"required":["to"]}"#,
        );
        assert_eq!(v.check(&json!({"to": ["a"], "n": 1})), Ok(()));
        let err = v.check(&json!({"to": "x"})).unwrap_err();
        assert_eq!(err, r#"/to: "x" is not of type "array""#);
        let err = v.check(&json!({"n": 3})).unwrap_err();
        assert!(err.contains(r#""to" is a required property"#), "{err}");
        assert!(err.contains("/n: 3 is not one of"), "{err}");
    }

    #[test]
    fn an_uncompilable_schema_checks_nothing() {
        let v = ArgsValidator::compile(r#"{"type": 5}"#);
        assert_eq!(v.check(&json!({"anything": true})), Ok(()));
    }

    #[test]
    fn many_violations_are_summarized() {
        let props: Vec<String> = (0..8).map(|i| format!("\"p{i}\"")).collect();
        let v = ArgsValidator::compile(&format!(
            r#"{{"type":"object","required":[{}]}}"#,
            props.join(",")
        ));
        let err = v.check(&json!({})).unwrap_err();
        assert!(err.ends_with("(and 3 more)"), "{err}");
    }
}
