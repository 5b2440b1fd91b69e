//! Share links: a run spec in a URL fragment, readable and editable by hand, e.g.
//! `v=1&env=orchestrator&agent=q-learning&seed=1&episodes=5000&p.alpha=0.2&e.reward_success=20&hide=hyperparameters`.
//! Only parameters that differ from the defaults are written: the agent's hyperparameters as
//! `p.<field>`, the environment's as `e.<field>`, and verdicts measured in Python as `e.verdicts`
//! (`p3-3` passed 3 of 3, `f1-3` failed, one per program in the bundled order).
//! `focus`, `hide` and `lock` are a teacher's ([`teaching`]): the pane the page opens on alone, and
//! the controls hidden or fixed in a reduced demo.
//!
//! A link may also carry the sender's results (`r.` fields, see [`SharedResults`]) so that the
//! recipient sees them at once, and can check that training the spec again gives the same run.
//!
//! Decoding never fails: every field is checked like the form checks it, and a bad one is replaced
//! by its default (a number out of range is clamped) with a message naming the field.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as BASE64_URL;

use crate::agents::AgentId;
use crate::device::Backend;
use crate::env::EnvId;
use crate::env::tasks::MeasuredVerdict;
use crate::params::{self, Parameters};
use crate::policy_view::StateRow;
use crate::python::Verdict;
use crate::run::{EpisodeRecord, Evaluation, RunSpec, fingerprint};

pub const LINK_VERSION: u32 = 1;
/// Longer fragments are refused before parsing: no real spec comes close.
pub const MAX_LINK_CHARS: usize = 4096;
/// Links with results are kept under this many characters (chat apps and mail clients cut longer
/// URLs); what does not fit is left out, the learned table first.
pub const SHARED_LINK_BUDGET: usize = 2000;
/// Points of the success curve in a link.
pub const CURVE_POINTS: usize = 50;
/// The fields of [`SharedResults`] in a link.
const RESULT_FIELDS: [&str; 5] = ["r.episodes", "r.success", "r.fp", "r.greedy", "r.table"];

#[derive(Clone, Debug, PartialEq)]
pub struct ShareLink {
    pub spec: RunSpec,
    pub teaching: Teaching<Control>,
    /// What the sender's run gave (absent from a link that only describes a run).
    pub results: Option<SharedResults>,
}

/// The results of the sender's run, small enough for a URL.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedResults {
    /// Episodes trained.
    pub episodes: u32,
    /// Success over the last 100 episodes in whole percent, at up to [`CURVE_POINTS`] evenly
    /// spaced episodes (the last point is the last episode).
    pub success_curve: Vec<u8>,
    /// The trained greedy policy's evaluation: success rate in percent and mean agent calls.
    pub greedy: Option<(f64, f64)>,
    /// The fingerprint of every record: training the spec again must give the same.
    pub fingerprint: String,
    /// Tabular agents: the learned values of each state training visited, rounded to 0.01.
    pub table: Option<Vec<(usize, Vec<f64>)>>,
}

impl SharedResults {
    /// The results of a run from its records, the evaluation of its greedy policy and (tabular
    /// agents) its value table.
    pub fn of(records: &[EpisodeRecord], greedy: Option<&Evaluation>, table: &[StateRow]) -> Option<Self> {
        let last = records.last()?;
        let n = records.len();
        let points = n.min(CURVE_POINTS);
        let success_curve = (1..=points)
            .map(|i| (records[(i * n).div_ceil(points) - 1].success_last100 * 100.0).round() as u8)
            .collect();
        let round = |v: f64| (v * 100.0).round() / 100.0;
        Some(Self {
            episodes: last.episode + 1,
            success_curve,
            greedy: greedy.map(|g| (round(g.success_rate * 100.0), round(g.mean_agent_calls))),
            fingerprint: fingerprint(records),
            table: (!table.is_empty())
                .then(|| table.iter().map(|row| (row.state, row.values.iter().map(|&v| round(v)).collect())).collect()),
        })
    }

    fn append(&self, out: &mut form_urlencoded::Serializer<String>) {
        out.append_pair("r.episodes", &self.episodes.to_string())
            .append_pair("r.success", &BASE64_URL.encode(&self.success_curve))
            .append_pair("r.fp", &self.fingerprint);
        if let Some((success, calls)) = self.greedy {
            out.append_pair("r.greedy", &format!("{success}_{calls}"));
        }
        if let Some(table) = &self.table {
            // `*`, `_`, `.` and `-` need no escaping in a URL, so the table stays readable.
            let rows: Vec<String> = table
                .iter()
                .map(|(state, values)| {
                    let values: Vec<String> = values.iter().map(f64::to_string).collect();
                    format!("{state}_{}", values.join("_"))
                })
                .collect();
            out.append_pair("r.table", &rows.join("*"));
        }
    }

    /// Reads the `r.` fields, checked against the run they claim to come from.
    fn read(get: impl Fn(&str) -> Option<String>, spec: &RunSpec) -> Result<Option<Self>, String> {
        let Some(episodes) = get("r.episodes") else {
            return match RESULT_FIELDS.into_iter().find(|k| get(k).is_some()) {
                Some(key) => Err(format!("{key} without r.episodes")),
                None => Ok(None),
            };
        };
        let episodes: u32 = whole(&episodes).map_err(|e| format!("r.episodes: {e}"))?;
        if !(1..=spec.episodes).contains(&episodes) {
            return Err(format!("r.episodes: {episodes} is outside 1..={} (the run's budget)", spec.episodes));
        }
        let curve = get("r.success").ok_or("r.success is missing")?;
        let success_curve =
            BASE64_URL.decode(curve.as_bytes()).map_err(|e| format!("r.success: not base64url ({e})"))?;
        if success_curve.is_empty() || success_curve.len() > CURVE_POINTS || success_curve.iter().any(|&p| p > 100) {
            return Err(format!("r.success: expected 1 to {CURVE_POINTS} percentages of at most 100"));
        }
        let fingerprint = get("r.fp").ok_or("r.fp is missing")?;
        if fingerprint.len() != 16 || !fingerprint.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!("r.fp: '{fingerprint}' is not 16 hexadecimal digits"));
        }
        let greedy = get("r.greedy").map(|text| read_greedy(&text)).transpose()?;
        let table = get("r.table").map(|text| read_table(&text, spec)).transpose()?;
        Ok(Some(Self { episodes, success_curve, greedy, fingerprint: fingerprint.to_ascii_lowercase(), table }))
    }
}

fn number(text: &str) -> Result<f64, String> {
    text.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| format!("'{text}' is not a number"))
}

fn read_greedy(text: &str) -> Result<(f64, f64), String> {
    let problem = || format!("r.greedy: '{text}' is not success_calls (two numbers)");
    let (success, calls) = text.split_once('_').ok_or_else(problem)?;
    let (success, calls) = (number(success).map_err(|_| problem())?, number(calls).map_err(|_| problem())?);
    if !(0.0..=100.0).contains(&success) || !(0.0..=1000.0).contains(&calls) {
        return Err(format!("r.greedy: success must be 0 to 100 (%) and calls 0 to 1000, got {success} and {calls}"));
    }
    Ok((success, calls))
}

fn read_table(text: &str, spec: &RunSpec) -> Result<Vec<(usize, Vec<f64>)>, String> {
    if !spec.agent.id().has_value_table() {
        return Err(format!("r.table: a {} agent has no value table", spec.agent.id().name()));
    }
    let env = spec.env.id().make();
    let info = crate::env::Environment::info(&env);
    let actions = info.action_names.len();
    text.split('*')
        .enumerate()
        .map(|(i, row)| {
            let mut parts = row.split('_');
            let state: usize = parts.next().map(whole).transpose()?.unwrap_or(usize::MAX);
            if state >= info.n_states {
                return Err(format!("row {}: state must be below {}", i + 1, info.n_states));
            }
            let values = parts.map(number).collect::<Result<Vec<f64>, String>>()?;
            if values.len() != actions || values.iter().any(|v| v.abs() > 1e6) {
                return Err(format!("row {}: expected {actions} values of at most 1e6 in size", i + 1));
            }
            Ok((state, values))
        })
        .collect::<Result<_, _>>()
        .map_err(|e| format!("r.table: {e}"))
}

impl Default for ShareLink {
    fn default() -> Self {
        let (env, agent) = (EnvId::default(), AgentId::default());
        Self::of(RunSpec::new(env, agent, 1, RunSpec::default_episodes(env, agent)))
    }
}

/// The parsed value of field `key`, or `default` with a problem naming the field.
fn read<T>(
    problems: &mut Vec<String>,
    key: &str,
    value: Option<&str>,
    default: T,
    parse: impl FnOnce(&str) -> Result<T, String>,
) -> T {
    match value.map(parse) {
        None => default,
        Some(Ok(value)) => value,
        Some(Err(problem)) => {
            problems.push(format!("{key}: {problem}"));
            default
        }
    }
}

/// The `key=value` pairs of a search or StepCoder link, after the checks they share, which name
/// every problem: its length (none when it is too long to read), its version, and any key that is
/// not one of `fields` nor starts with `prefix` (the link's parameter fields, `o.` or `p.`).
fn link_pairs(
    fragment: &str,
    fields: &[&str],
    prefix: &str,
    kind: &str,
    problems: &mut Vec<String>,
) -> Option<Vec<(String, String)>> {
    if fragment.len() > MAX_LINK_CHARS {
        problems.push(format!("the link is {} characters long, more than {MAX_LINK_CHARS}", fragment.len()));
        return None;
    }
    let pairs: Vec<(String, String)> = form_urlencoded::parse(fragment.as_bytes()).into_owned().collect();
    if !pairs.iter().any(|(k, v)| k == "v" && *v == LINK_VERSION.to_string()) {
        problems.push(format!("the link's version is not {LINK_VERSION} (v={LINK_VERSION})"));
    }
    for key in pairs.iter().map(|(k, _)| k.as_str()) {
        if !fields.contains(&key) && !key.starts_with(prefix) {
            problems.push(format!("'{key}' is not a field of a {kind} link"));
        }
    }
    Some(pairs)
}

/// A unit variant's name as serde spells it (`paper`, `keep_all`), for a link's field.
fn name_of<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

/// The unit variant a link's field names.
fn of_name<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, String> {
    serde_json::from_value(serde_json::Value::String(text.to_owned())).map_err(|e| e.to_string())
}

/// The spec of kind `template` with the link's `prefix` fields (`p.alpha`) applied. A field that
/// `owner` does not have, or values it refuses, are named; then `template`'s defaults are kept.
fn read_params<P: Parameters + Clone>(
    problems: &mut Vec<String>,
    pairs: &[(String, String)],
    (prefix, owner, noun): (&str, &str, &str),
    template: &P,
) -> P {
    let fields = params::fields(&template.params_schema());
    for (key, _) in pairs.iter().filter(|(k, _)| k.starts_with(prefix) && k != VERDICTS) {
        if !fields.iter().any(|f| f.name() == key[prefix.len()..]) {
            problems.push(format!("{key}: {owner} has no {noun} '{}'", &key[prefix.len()..]));
        }
    }
    let defaults = params::texts(template, &fields);
    let texts: Vec<String> = fields
        .iter()
        .zip(defaults)
        .map(|(f, default)| {
            let key = format!("{prefix}{}", f.name());
            pairs.iter().find(|(k, _)| *k == key).map_or(default, |(_, v)| v.clone())
        })
        .collect();
    params::build(template, &fields, &texts).unwrap_or_else(|problem| {
        problems.push(format!("{noun}s: {problem}; using the defaults"));
        template.clone()
    })
}

/// The link field of verdicts measured in Python.
const VERDICTS: &str = "e.verdicts";

/// `measured` as the link writes it: `p3-3_f1-3_…`, in the order of the environment's programs.
fn verdicts_text(env: EnvId, measured: &[MeasuredVerdict]) -> String {
    let verdict_of = |task: &str, variant: &str| {
        measured.iter().find(|m| m.task_id == task && m.variant == variant).map(|m| m.verdict)
    };
    env.measured_programs()
        .iter()
        .filter_map(|p| verdict_of(&p.task_id, &p.variant))
        .map(|v| format!("{}{}-{}", if v.passed { 'p' } else { 'f' }, v.number_passed, v.total))
        .collect::<Vec<_>>()
        .join("_")
}

fn read_verdicts(env: EnvId, text: &str) -> Result<Vec<MeasuredVerdict>, String> {
    let programs = env.measured_programs();
    let parts: Vec<&str> = text.split('_').collect();
    if parts.len() != programs.len() {
        return Err(format!("expected {} verdicts, one per program, got {}", programs.len(), parts.len()));
    }
    programs
        .iter()
        .zip(parts)
        .map(|(program, part)| {
            let problem = || format!("'{part}' is not p or f, then passed-total (p3-3)");
            let passed = match part.chars().next() {
                Some('p') => true,
                Some('f') => false,
                _ => return Err(problem()),
            };
            let (n, total) = part[1..].split_once('-').ok_or_else(problem)?;
            let (number_passed, total): (u32, u32) = (whole(n)?, whole(total)?);
            if number_passed > total || total > 1000 {
                return Err(format!("'{part}': passed must be at most the total, and the total at most 1000"));
            }
            Ok(program.measured(Verdict { passed, number_passed, total }))
        })
        .collect()
}

fn whole<T: std::str::FromStr>(text: &str) -> Result<T, String> {
    text.parse().map_err(|_| format!("'{text}' is not a whole number"))
}

impl ShareLink {
    /// A link to train `spec`, with nothing hidden, locked or attached.
    pub fn of(spec: RunSpec) -> Self {
        Self { spec, teaching: Teaching::default(), results: None }
    }

    /// The fragment, kept within [`SHARED_LINK_BUDGET`] by leaving out results that do not fit:
    /// the learned table first, then the rest. Says what was left out and why.
    pub fn encode_within_budget(&self) -> (String, Option<String>) {
        let full = self.encode();
        let Some(results) = self.results.as_ref().filter(|_| full.len() > SHARED_LINK_BUDGET) else {
            return (full, None);
        };
        let too_long = |what: &str| format!("{what} would make it {} characters long", full.len());
        if let Some(table) = &results.table {
            let without_table =
                Self { results: Some(SharedResults { table: None, ..results.clone() }), ..self.clone() };
            let fragment = without_table.encode();
            if fragment.len() <= SHARED_LINK_BUDGET {
                let what = format!("the learned table ({} states)", table.len());
                return (fragment, Some(format!("The link leaves out {what}: {}.", too_long("it"))));
            }
        }
        let fragment = Self { results: None, ..self.clone() }.encode();
        (fragment, Some(format!("The link leaves out the run's results: {}.", too_long("they"))))
    }

    /// The fragment (without `#`).
    pub fn encode(&self) -> String {
        let spec = &self.spec;
        let mut out = form_urlencoded::Serializer::new(String::new());
        out.append_pair("v", &LINK_VERSION.to_string())
            .append_pair("env", spec.env.id().name())
            .append_pair("agent", spec.agent.id().name())
            .append_pair("seed", &spec.seed.to_string())
            .append_pair("episodes", &spec.episodes.to_string());
        if spec.backend != Backend::default() {
            out.append_pair("backend", spec.backend.name());
        }
        let env = spec.env.id();
        for (field, text) in params::changed(&spec.agent, &spec.agent.id().default_spec(env)) {
            out.append_pair(&format!("p.{}", field.name()), &text);
        }
        for (field, text) in params::changed(&spec.env, &env.default_spec()) {
            out.append_pair(&format!("e.{}", field.name()), &text);
        }
        if let Some(measured) = spec.env.measured_verdicts() {
            out.append_pair(VERDICTS, &verdicts_text(env, measured));
        }
        self.teaching.append(&mut out);
        if let Some(results) = &self.results {
            results.append(&mut out);
        }
        out.finish()
    }

    /// Reads a fragment (with or without `#`); returns a valid link and what had to be replaced.
    pub fn decode(fragment: &str) -> (ShareLink, Vec<String>) {
        let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
        let mut problems = Vec::new();
        if fragment.len() > MAX_LINK_CHARS {
            problems.push(format!("the link is {} characters long, more than {MAX_LINK_CHARS}", fragment.len()));
            return (ShareLink::default(), problems);
        }
        let pairs: Vec<(String, String)> = form_urlencoded::parse(fragment.as_bytes()).into_owned().collect();
        // A key given twice is named, and the first one wins (as in `URLSearchParams::get`).
        let get = |key: &str| pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
        for (index, (key, value)) in pairs.iter().enumerate() {
            let repeats = pairs[index + 1..].iter().filter(|(k, _)| k == key).count();
            if repeats > 0 && !pairs[..index].iter().any(|(k, _)| k == key) {
                problems.push(format!("'{key}' is given {} times; using the first, '{value}'", repeats + 1));
            }
        }
        match get("v") {
            Some(v) if v == LINK_VERSION.to_string() => {}
            Some(v) => {
                problems.push(format!("the link has version '{v}'; this page reads version {LINK_VERSION}"));
                return (ShareLink::default(), problems);
            }
            None => {
                problems.push("the link has no version (v=1)".into());
                return (ShareLink::default(), problems);
            }
        }
        let defaults = ShareLink::default();
        let env = read(&mut problems, "env", get("env"), defaults.spec.env.id(), EnvId::parse);
        let mut agent = read(&mut problems, "agent", get("agent"), defaults.spec.agent.id(), AgentId::parse);
        if !agent.uses_backend() && !env.discrete_states() {
            problems.push(format!(
                "agent: {} learns a table per state, and {}'s states are continuous; using dqn",
                agent.name(),
                env.name()
            ));
            agent = AgentId::Dqn;
        }
        let seed = read(&mut problems, "seed", get("seed"), defaults.spec.seed, whole);
        let episodes = read(&mut problems, "episodes", get("episodes"), RunSpec::default_episodes(env, agent), |v| {
            let n: u64 = whole(v)?;
            let max = u64::from(RunSpec::MAX_EPISODES);
            Ok(n.clamp(1, max) as u32)
        });
        if let Some(n) = get("episodes").and_then(|v| v.parse::<u64>().ok())
            && u64::from(episodes) != n
        {
            problems.push(format!("episodes: {n} is outside 1..={}; using {episodes}", RunSpec::MAX_EPISODES));
        }
        let backend = read(&mut problems, "backend", get("backend"), Backend::default(), Backend::parse);
        let teaching = Teaching::read(&mut problems, get);

        for key in pairs.iter().map(|(k, _)| k.as_str()) {
            let known = ["v", "env", "agent", "seed", "episodes", "backend", VERDICTS].contains(&key)
                || Teaching::<Control>::FIELDS.contains(&key)
                || RESULT_FIELDS.contains(&key);
            if !known && !key.starts_with("p.") && !key.starts_with("e.") {
                problems.push(format!("'{key}' is not a field of a share link"));
            }
        }
        let agent_spec =
            read_params(&mut problems, &pairs, ("p.", agent.name(), "hyperparameter"), &agent.default_spec(env));
        let mut env_spec =
            read_params(&mut problems, &pairs, ("e.", env.name(), "environment parameter"), &env.default_spec());
        if let Some(text) = get(VERDICTS) {
            let measured = read_verdicts(env, text).and_then(|m| env_spec.set_measured_verdicts(Some(m)));
            if let Err(problem) = measured {
                problems.push(format!("{VERDICTS}: {problem}; using the recorded verdicts"));
            }
        }
        let spec = RunSpec { env: env_spec, agent: agent_spec, seed, episodes, backend };
        let results = SharedResults::read(|key| get(key).map(str::to_owned), &spec).unwrap_or_else(|problem| {
            problems.push(format!("{problem}; the shared results are left out"));
            None
        });
        (ShareLink { spec, teaching, results }, problems)
    }
}

pub mod ablation_link;
pub mod route;
pub mod search_link;
pub mod teaching;
pub mod training_link;

pub use teaching::{AblationControl, Control, FormControl, Pane, SearchControl, Teaching};

/// Whether a fragment is a link of some kind (`key=value` pairs) rather than an in-page anchor
/// (`#seed-000`).
pub fn is_link_fragment(fragment: &str) -> bool {
    fragment.contains('=')
}

/// Whether a fragment (with or without `#`) is a link with field `key` (`search=…`), the mark of
/// a search's, an ablation's or a training's link; the pane's own anchor (`#search`) is not one.
fn is_link_with(fragment: &str, key: &str) -> bool {
    let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
    is_link_fragment(fragment) && form_urlencoded::parse(fragment.as_bytes()).any(|(k, _)| k == key)
}

/// A kind of link that the page reads from its address: a run's, a search's, a StepCoder
/// ablation's or a model's training's. The page reads and writes every kind through this one trait.
pub trait Link: Sized {
    /// What the link shares, for messages: "run", "search", "StepCoder".
    const KIND: &'static str;
    /// The pane that opens such a link.
    const PANE: Pane;
    /// Whether `fragment` (with or without `#`) is a link of this kind.
    fn is_fragment(fragment: &str) -> bool;
    /// A valid link, and what had to be replaced by defaults.
    fn read(fragment: &str) -> (Self, Vec<String>);
    /// The fragment, without `#`.
    fn fragment(&self) -> String;
}

impl Link for ShareLink {
    const KIND: &'static str = "run";
    const PANE: Pane = Pane::Train;

    /// Any link that is not a search's, an ablation's or a training's.
    fn is_fragment(fragment: &str) -> bool {
        is_link_fragment(fragment)
            && !search_link::SearchLink::is_fragment(fragment)
            && !ablation_link::AblationLink::is_fragment(fragment)
            && !training_link::TrainingLink::is_fragment(fragment)
    }

    fn read(fragment: &str) -> (Self, Vec<String>) {
        Self::decode(fragment)
    }

    fn fragment(&self) -> String {
        self.encode()
    }
}
#[cfg(test)]
mod tests;

/// Asserts that a link's `problems` are as many as `expected` and each starts with its line.
#[cfg(test)]
fn assert_problems_start_with(problems: &[String], expected: &[&str]) {
    assert_eq!(problems.len(), expected.len(), "{problems:?}");
    for (problem, start) in problems.iter().zip(expected) {
        assert!(problem.starts_with(start), "{problem} should start with {start}");
    }
}
