//! Parameters as named text fields, derived from a spec's parameter schema: one field per leaf of
//! the parameter struct, explained by the field's doc comment. Agent hyperparameters and environment
//! parameters both go through here, for the page's form, share links and the CLI: text is parsed
//! only when a spec is built, and every problem names its field.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// A spec whose parameters are edited as fields: an agent's or an environment's.
pub trait Parameters: Serialize + DeserializeOwned {
    /// The JSON schema of the parameters: their types, and each field's doc comment as its
    /// description, so forms explain the fields in the words of the code.
    fn params_schema(&self) -> Value;
    /// Checks every parameter; the error names the field and its allowed range.
    fn validate(&self) -> Result<(), String>;
}

/// Checks that `value` lies in `range`, naming the field otherwise.
pub fn check_range(field: &str, value: f64, range: std::ops::RangeInclusive<f64>) -> Result<(), String> {
    if range.contains(&value) {
        Ok(())
    } else {
        Err(format!("{field} must be between {} and {}, got {value}", range.start(), range.end()))
    }
}

/// Rewards are bounded so that returns stay readable and value tables finite.
pub fn check_reward(field: &str, value: f64) -> Result<(), String> {
    check_range(field, value, -1000.0..=1000.0)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Number,
    /// A number kept in single precision (`f32`): shown as its shortest `f32` text, 0.8 rather
    /// than the 0.800000011920929 that the same value reads as in double precision.
    SingleNumber,
    Integer,
    Bool,
    /// A list of whole numbers, typed as "64, 32".
    IntegerList,
    /// A list of names, typed as "q_proj, v_proj".
    NameList,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// Keys from the spec's top level down, e.g. `["q_learning", "alpha"]`.
    pub path: Vec<String>,
    pub description: String,
    pub kind: Kind,
}

impl Field {
    /// The dotted name used in messages and element ids, e.g. `q_learning.alpha`.
    pub fn name(&self) -> String {
        self.path.join(".")
    }

    /// The field's value in `spec` as the form shows it.
    pub fn text(&self, spec: &Value) -> String {
        let value = self.path.iter().fold(spec, |v, key| &v[key]);
        match (self.kind, value) {
            (Kind::IntegerList, Value::Array(items)) => {
                items.iter().map(Value::to_string).collect::<Vec<_>>().join(", ")
            }
            (Kind::NameList, Value::Array(items)) => {
                items.iter().map(|item| item.as_str().unwrap_or_default()).collect::<Vec<_>>().join(", ")
            }
            (Kind::SingleNumber, Value::Number(number)) => (number.as_f64().unwrap_or_default() as f32).to_string(),
            (_, value) => value.to_string(),
        }
    }

    pub fn parse(&self, text: &str) -> Result<Value, String> {
        let text = text.trim();
        let bad = |what: &str| format!("{}: '{text}' is not {what}", self.name());
        match self.kind {
            Kind::Number | Kind::SingleNumber => {
                text.parse::<f64>().ok().filter(|x| x.is_finite()).map(Value::from).ok_or_else(|| bad("a number"))
            }
            Kind::Integer => text.parse::<u64>().map(Value::from).map_err(|_| bad("a whole number")),
            Kind::Bool => text.parse::<bool>().map(Value::from).map_err(|_| bad("true or false")),
            Kind::IntegerList => text
                .split(',')
                .map(|part| part.trim().parse::<u64>().map(Value::from))
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Array)
                .map_err(|_| bad("a comma-separated list of whole numbers")),
            Kind::NameList => Ok(Value::Array(
                text.split(',').map(str::trim).filter(|name| !name.is_empty()).map(Value::from).collect(),
            )),
        }
    }
}

/// The leaf fields of a parameter schema, in declaration order, nested structs flattened.
pub fn fields(schema: &Value) -> Vec<Field> {
    let mut out = Vec::new();
    collect(schema, &schema["$defs"], &mut Vec::new(), &mut out);
    out
}

fn collect(schema: &Value, defs: &Value, prefix: &mut Vec<String>, out: &mut Vec<Field>) {
    let Some(properties) = schema["properties"].as_object() else { return };
    for (name, property) in properties {
        let resolved = match property["$ref"].as_str().and_then(|r| r.strip_prefix("#/$defs/")) {
            Some(def) => &defs[def],
            None => property,
        };
        prefix.push(name.clone());
        let kind = match resolved["type"].as_str() {
            Some("object") => None,
            Some("number") if resolved["format"] == "float" => Some(Kind::SingleNumber),
            Some("number") => Some(Kind::Number),
            Some("integer") => Some(Kind::Integer),
            Some("boolean") => Some(Kind::Bool),
            Some("array") if resolved["items"]["type"] == "integer" => Some(Kind::IntegerList),
            Some("array") => Some(Kind::NameList),
            _ => None,
        };
        match kind {
            Some(kind) => out.push(Field {
                path: prefix.clone(),
                description: plain_text(resolved["description"].as_str().unwrap_or_default()),
                kind,
            }),
            None => collect(resolved, defs, prefix, out),
        }
        prefix.pop();
    }
}

/// The texts of `fields` in `spec`, as a form shows them.
pub fn texts<P: Parameters>(spec: &P, fields: &[Field]) -> Vec<String> {
    let value = serde_json::to_value(spec).expect("specs serialise");
    fields.iter().map(|f| f.text(&value)).collect()
}

/// The fields whose value in `spec` differs from the one in `defaults`, with their text.
pub fn changed<P: Parameters>(spec: &P, defaults: &P) -> Vec<(Field, String)> {
    let fields = fields(&defaults.params_schema());
    let (ours, theirs) = (texts(spec, &fields), texts(defaults, &fields));
    fields.into_iter().zip(ours).zip(theirs).filter(|((_, a), b)| a != b).map(|((f, a), _)| (f, a)).collect()
}

/// Builds and validates the spec of kind `template` from the texts of its fields; what the fields
/// do not cover (a tag, data the host set) is kept from `template`.
pub fn build<P: Parameters>(template: &P, fields: &[Field], texts: &[String]) -> Result<P, String> {
    let mut value = serde_json::to_value(template).expect("specs serialise");
    for (field, text) in fields.iter().zip(texts) {
        let parsed = field.parse(text)?;
        let (last, parents) = field.path.split_last().expect("fields have a name");
        if let Some(parent) = parents.iter().fold(&mut value, |v, key| &mut v[key]).as_object_mut() {
            parent.insert(last.clone(), parsed);
        }
    }
    let spec: P = serde_json::from_value(value).map_err(|e| format!("parameters: {e}"))?;
    spec.validate()?;
    Ok(spec)
}

/// Applies `NAME=VALUE` settings (a command line's) to `template`: each name must be one of its
/// fields, and every problem names the setting.
pub fn apply<P: Parameters>(template: &P, settings: &[String]) -> Result<P, String> {
    let fields = fields(&template.params_schema());
    let mut texts = texts(template, &fields);
    for setting in settings {
        let (name, text) = setting.split_once('=').ok_or_else(|| format!("'{setting}' is not NAME=VALUE"))?;
        let index = fields.iter().position(|f| f.name() == name.trim()).ok_or_else(|| {
            let valid: Vec<String> = fields.iter().map(Field::name).collect();
            format!("'{}' is not a parameter here; valid: {}", name.trim(), valid.join(", "))
        })?;
        texts[index] = text.to_owned();
    }
    build(template, &fields, &texts)
}

/// A doc comment as a form shows it: one line, without its Markdown (a link `[`X`]` or
/// `[`X`](path)` and a code span `X` read as X).
fn plain_text(doc: &str) -> String {
    let mut text = String::new();
    let mut rest = doc.replace('\n', " ");
    while let Some(at) = rest.find("[`") {
        let Some(end) = rest[at..].find("`]").map(|e| at + e) else { break };
        text.push_str(&rest[..at]);
        text.push_str(&rest[at + 2..end]);
        let mut after = end + 2;
        // A link's target, `(path)`, goes with it.
        if rest[after..].starts_with('(')
            && let Some(close) = rest[after..].find(')')
        {
            after += close + 1;
        }
        rest = rest[after..].to_owned();
    }
    text.push_str(&rest);
    text.replace('`', "")
}

/// Serde's default for a switch that is on unless a saved value says otherwise.
pub(crate) fn on() -> bool {
    true
}

/// Whether a value is its type's default, so that a saved value leaves it out.
pub(crate) fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// Whether a share is at its default, 0, so that a saved value leaves it out.
pub(crate) fn is_zero(share: &f64) -> bool {
    *share == 0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_is_described_in_plain_text() {
        assert_eq!(
            plain_text("One of [`REWARD_HACKS`] (see\n[`cheating::special_case`](crate::cheating)), `0` by default."),
            "One of REWARD_HACKS (see cheating::special_case), 0 by default."
        );
    }
    use crate::{AgentId, AgentSpec, EnvId};

    fn form(agent: AgentId) -> (AgentSpec, Vec<Field>, Vec<String>) {
        let spec = agent.default_spec(EnvId::Executive);
        let fields = fields(&spec.params_schema());
        let texts = texts(&spec, &fields);
        (spec, fields, texts)
    }

    #[test]
    fn every_agent_round_trips_through_its_form() {
        for agent in AgentId::ALL {
            let (spec, fields, texts) = form(agent);
            assert!(!fields.is_empty());
            assert!(fields.iter().all(|f| !f.description.is_empty()), "{:?}", fields);
            assert_eq!(build(&spec, &fields, &texts).unwrap(), spec, "{agent:?}");
        }
    }

    #[test]
    fn nested_fields_are_flattened_in_declaration_order() {
        let (_, fields, _) = form(AgentId::QThompson);
        let names: Vec<_> = fields.iter().map(Field::name).collect();
        assert_eq!(names[0], "q_learning.alpha");
        assert!(names.contains(&"thompson.prior_beta".to_owned()));
        let (_, fields, texts) = form(AgentId::Dqn);
        let hidden = fields.iter().position(|f| f.name() == "hidden").unwrap();
        assert_eq!((fields[hidden].kind, texts[hidden].as_str()), (Kind::IntegerList, "64, 32"));
    }

    #[test]
    fn bad_text_and_out_of_range_values_name_the_field() {
        let (spec, fields, mut texts) = form(AgentId::QLearning);
        texts[0] = "fast".into();
        assert_eq!(build(&spec, &fields, &texts).unwrap_err(), "alpha: 'fast' is not a number");
        texts[0] = "1.5".into();
        assert_eq!(build(&spec, &fields, &texts).unwrap_err(), "alpha must be between 0 and 1, got 1.5");
        let (spec, fields, mut texts) = form(AgentId::Dqn);
        let hidden = fields.iter().position(|f| f.name() == "hidden").unwrap();
        texts[hidden] = "64, big".into();
        assert!(build(&spec, &fields, &texts).unwrap_err().starts_with("hidden: '64, big' is not a comma-separated"));
    }
}
