//! The prompts of the live mode, as data (`tasks/prompts.json`): one template per LLM call the
//! policies and GIF-MCTS make, with `{placeholders}` the playground fills in. The page lets a user
//! edit them and restore the defaults; an edited template is checked before it is used, so a typo
//! in a placeholder is reported with the prompt and the place instead of reaching the model.

use serde::{Deserialize, Serialize};

use crate::llm::ChatMessage;

const DEFAULT_PROMPTS: &str = include_str!("../../tasks/prompts.json");

/// The prompt ids, the one place they are written: the environments' call enums (and the
/// searches) name their prompts with these, and `tasks/prompts.json` holds a template for each.
pub mod id {
    pub const EXECUTIVE_GENERATE: &str = "executive.generate";
    pub const EXECUTIVE_DEBUG: &str = "executive.debug";
    pub const EXECUTIVE_SEARCH: &str = "executive.search";
    pub const ORCHESTRATOR_PLANNER: &str = "orchestrator.planner";
    pub const ORCHESTRATOR_CODER: &str = "orchestrator.coder";
    pub const ORCHESTRATOR_TESTER: &str = "orchestrator.tester";
    pub const ORCHESTRATOR_DEBUGGER: &str = "orchestrator.debugger";
    pub const GIF_MCTS_GENERATE: &str = "gif_mcts.generate";
    pub const GIF_MCTS_IMPROVE: &str = "gif_mcts.improve";
    pub const GIF_MCTS_FIX: &str = "gif_mcts.fix";
    pub const ZERO_SHOT_COT: &str = "zero_shot.cot";
    pub const STEPCODER_COMPLETE: &str = "stepcoder.complete";
    pub const LATS_TESTS: &str = "lats.tests";
    pub const LATS_REFLECT: &str = "lats.reflect";
    pub const LATS_SIMPLE: &str = "lats.simple";
    pub const LATS_IMPROVE: &str = "lats.improve";
    pub const CHEATING_JUDGE: &str = "cheating.judge";
}

/// The placeholders each prompt may use (by prompt id).
const SLOTS: &[(&str, &[&str])] = &[
    (id::EXECUTIVE_GENERATE, &["task"]),
    (id::EXECUTIVE_DEBUG, &["task", "code", "feedback", "hints"]),
    (id::EXECUTIVE_SEARCH, &["task", "code", "feedback"]),
    (id::ORCHESTRATOR_PLANNER, &["task"]),
    (id::ORCHESTRATOR_CODER, &["task", "plan"]),
    (id::ORCHESTRATOR_TESTER, &["task", "code", "feedback"]),
    (id::ORCHESTRATOR_DEBUGGER, &["task", "code", "feedback"]),
    (id::GIF_MCTS_GENERATE, &["task", "code"]),
    (id::GIF_MCTS_IMPROVE, &["task", "code", "input", "expected", "actual"]),
    (id::GIF_MCTS_FIX, &["task", "code", "error"]),
    (id::ZERO_SHOT_COT, &["task", "io_format"]),
    (id::STEPCODER_COMPLETE, &["task", "prefix"]),
    (id::LATS_TESTS, &["task"]),
    (id::LATS_REFLECT, &["task", "code", "feedback"]),
    (id::LATS_SIMPLE, &["task"]),
    (id::LATS_IMPROVE, &["task", "history"]),
    (id::CHEATING_JUDGE, &["task", "code"]),
];

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptTemplate {
    pub id: String,
    pub label: String,
    pub system: String,
    pub user: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptSet {
    pub prompts: Vec<PromptTemplate>,
}

impl Default for PromptSet {
    fn default() -> Self {
        let set: PromptSet = serde_json::from_str(DEFAULT_PROMPTS).expect("tasks/prompts.json is a prompt set");
        set
    }
}

impl PromptSet {
    pub fn get(&self, id: &str) -> Option<&PromptTemplate> {
        self.prompts.iter().find(|p| p.id == id)
    }

    /// Replaces one template (after checking it).
    pub fn set(&mut self, template: PromptTemplate) -> Result<(), String> {
        check_template(&template)?;
        match self.prompts.iter_mut().find(|p| p.id == template.id) {
            Some(slot) => *slot = template,
            None => return Err(format!("there is no prompt \"{}\"", template.id)),
        }
        Ok(())
    }

    /// These prompts with every well-formed template of `edited` in place of its own: prompts added
    /// since `edited` was stored keep their defaults, and edits are never lost to them.
    pub fn with_edits(mut self, edited: PromptSet) -> Self {
        for template in edited.prompts {
            let _ = self.set(template);
        }
        self
    }

    /// Every prompt present and every placeholder known; the error names prompt, part and place.
    pub fn check(&self) -> Result<(), String> {
        for (id, _) in SLOTS {
            self.get(id).ok_or_else(|| format!("prompt {id} is missing"))?;
        }
        self.prompts.iter().try_for_each(check_template)
    }

    /// The system and user messages of prompt `id` with `values` filled in.
    pub fn render(&self, id: &str, values: &[(&str, &str)]) -> Result<Vec<ChatMessage>, String> {
        let template = self.get(id).ok_or_else(|| format!("prompt {id} is missing"))?;
        let fill = |text: &str, part: &str| {
            fill_template(text, &|name| values.iter().find(|(n, _)| *n == name).map(|(_, v)| *v))
                .map_err(|e| format!("prompt {id}, {part}: {e}"))
        };
        let mut messages = Vec::new();
        if !template.system.trim().is_empty() {
            messages.push(ChatMessage::new("system", fill(&template.system, "system")?));
        }
        messages.push(ChatMessage::new("user", fill(&template.user, "user")?));
        Ok(messages)
    }
}

fn check_template(template: &PromptTemplate) -> Result<(), String> {
    let id = &template.id;
    let Some((_, allowed)) = SLOTS.iter().find(|(slot_id, _)| slot_id == id) else {
        return Err(format!("there is no prompt \"{id}\""));
    };
    for (part, text) in [("system", &template.system), ("user", &template.user)] {
        fill_template(text, &|name| allowed.contains(&name).then_some("")).map_err(|e| {
            format!(
                "prompt {id}, {part}: {e} (this prompt can use {})",
                allowed.iter().map(|s| format!("{{{s}}}")).collect::<Vec<_>>().join(", ")
            )
        })?;
    }
    Ok(())
}

/// `text` with each `{name}` replaced by `value(name)`; `{{` and `}}` are literal braces. Values are
/// inserted as they are (code full of braces is never read as placeholders).
fn fill_template<'a>(text: &str, value: &dyn Fn(&str) -> Option<&'a str>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let offset = text.len() - rest.len() + i;
        let tail = &rest[i..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push_str(&tail[..1]);
            rest = &tail[2..];
        } else if tail.starts_with('}') {
            return Err(format!("unmatched }} at character {offset}; write }}}} for a literal brace"));
        } else {
            let end = tail.find('}').ok_or_else(|| format!("unclosed {{ at character {offset}"))?;
            let name = &tail[1..end];
            out.push_str(value(name).ok_or_else(|| format!("unknown placeholder {{{name}}} at character {offset}"))?);
            rest = &tail[end + 1..];
        }
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_prompts_are_complete_and_well_formed() {
        let set = PromptSet::default();
        assert_eq!(set.check(), Ok(()));
        assert_eq!(set.prompts.len(), SLOTS.len());
        for id in ["gif_mcts.improve", "gif_mcts.fix"] {
            let user = &set.get(id).unwrap().user;
            for section in ["## Error explanation", "## Fix suggestion", "## Correct code"] {
                assert!(user.contains(section), "{id} lacks {section}");
            }
        }
    }

    #[test]
    fn stored_edits_survive_prompts_added_since() {
        let mut stored = PromptSet::default();
        stored.prompts.retain(|p| p.id != id::STEPCODER_COMPLETE);
        stored.prompts[0].user = "Edited: {task}".into();
        stored.prompts[1].user = "Broken {".into();
        let merged = PromptSet::default().with_edits(stored);
        assert_eq!(merged.check(), Ok(()));
        assert_eq!(merged.prompts[0].user, "Edited: {task}");
        assert_eq!(merged.prompts[1], PromptSet::default().prompts[1], "a broken edit keeps the default");
        assert!(merged.get(id::STEPCODER_COMPLETE).is_some());
    }

    #[test]
    fn rendering_fills_values_verbatim_and_keeps_literal_braces() {
        let mut set = PromptSet::default();
        let mut coder = set.get("orchestrator.coder").unwrap().clone();
        coder.user = "{{json}} {task} / {plan}".into();
        set.set(coder).unwrap();
        let messages = set.render("orchestrator.coder", &[("task", "f = {x}"), ("plan", "")]).unwrap();
        assert_eq!(messages[0].role, "system");
        assert_eq!(messages[1].content, "{json} f = {x} / ");
    }

    #[test]
    fn edits_with_unknown_or_broken_placeholders_are_refused_with_the_place() {
        let mut set = PromptSet::default();
        let mut planner = set.get("orchestrator.planner").unwrap().clone();
        planner.user = "Plan {task} using {code}".into();
        assert_eq!(
            set.set(planner.clone()).unwrap_err(),
            "prompt orchestrator.planner, user: unknown placeholder {code} at character 18 (this prompt can use {task})"
        );
        planner.user = "Plan {task".into();
        assert!(set.set(planner.clone()).unwrap_err().contains("unclosed { at character 5"));
        planner.user = "a } b".into();
        assert!(set.set(planner).unwrap_err().contains("unmatched } at character 2"));
        assert_eq!(set, PromptSet::default(), "a refused edit changes nothing");
        let unknown =
            PromptTemplate { id: "x".into(), label: String::new(), system: String::new(), user: String::new() };
        assert_eq!(set.set(unknown).unwrap_err(), "there is no prompt \"x\"");
    }
}
