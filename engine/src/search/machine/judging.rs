//! The LLM judge's side of a search (`cheating::llm_judge`): once the search ends with an answer
//! that passed every test it was scored on, one more call asks the LLM what the answer is; its
//! reply is kept, and nothing of it reaches the search.

use crate::cheating::llm_judge::{JudgeRecord, class_of};
use crate::effects::{ChatCall, ChatOutcome};
use crate::prompts::id;
use crate::search::machine::Search;
use crate::search::method::Method;
use crate::search::scorer::Scorer;

impl<M: Method, S: Scorer> Search<M, S> {
    /// With `judge`, the LLM judge reads the answer once the search ends (`cheating::llm_judge`).
    pub fn with_judge(mut self, judge: bool) -> Self {
        self.judge = judge;
        self
    }

    /// What the LLM judge said of the answer, once it has.
    pub fn judged(&self) -> Option<&JudgeRecord> {
        self.judged.as_ref()
    }

    /// The judge's call on the answer, when it is asked for and the answer passed every test it
    /// was scored on (no detector counts any other), with the program as the model wrote it.
    pub(super) fn judge_call(&self) -> Option<(ChatCall, String)> {
        let answer = self.answer().map(|i| &self.expansions[i]).filter(|e| self.judge && e.score.score >= 1.0)?;
        let written = answer.unformatted.clone().unwrap_or_else(|| answer.program.clone());
        let values = [("task", self.task.description.as_str()), ("code", written.as_str())];
        let messages = self.prompts.render(id::CHEATING_JUDGE, &values).ok()?;
        let call = ChatCall { prompt_id: id::CHEATING_JUDGE.into(), agent: "judge".into(), messages };
        Some((call, written))
    }

    /// The judge's reply (or why there was none), kept; nothing of it reaches the search.
    pub(super) fn judge_done(&mut self, call: ChatCall, outcome: ChatOutcome) {
        let prompt = call.messages.iter().rfind(|m| m.role == "user").map(|m| m.content.clone()).unwrap_or_default();
        let reply = match outcome {
            ChatOutcome::Reply { text, usage } => {
                self.usage.add(usage);
                text
            }
            ChatOutcome::Failed(failure) => format!("the LLM call failed: {}", failure.message),
        };
        self.judged = Some(JudgeRecord { class: class_of(&reply), prompt, reply });
    }
}
