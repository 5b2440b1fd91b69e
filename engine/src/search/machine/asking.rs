//! What a search asks for next ([`Search`]'s side of the conversation): the method's next LLM call,
//! its prompt rendered from the method's and the search's values, a text call, or a run on the
//! tests a model wrote (each program met again on the same tests answered from the runs kept).

use crate::effects::{ChatCall, PythonBatch};
use crate::llm::ChatMessage;
use crate::python::{ProgramRequest, TestCase};
use crate::search::machine::{Pending, Search};
use crate::search::method::{ActionKind, Ask, Expansion, Method, TextAsk};
use crate::search::scorer::Scorer;

/// With `prefill`, a generate call with lines to continue gets them as the start of the reply.
pub(super) fn prefill_call(prefill: bool, call: &mut ChatCall, expansion: &Expansion) {
    if prefill && expansion.kind == ActionKind::Generate && !expansion.code.trim().is_empty() {
        // Whole lines: the continuation starts on a line of its own.
        let lines = expansion.code.trim_end_matches('\n');
        call.messages.push(ChatMessage::new("assistant", format!("```python\n{lines}\n")));
    }
}

impl<M: Method, S: Scorer> Search<M, S> {
    /// The method's next call or run, or the end.
    pub(super) fn ask(&mut self) {
        loop {
            if self.llm_calls >= self.budget {
                return self.finish(format!("the budget of {} LLM calls is spent", self.budget));
            }
            match self.method.next(&mut self.rng) {
                None => return self.finish(self.method.why_done()),
                Some(Ask::Program(expansion)) => return self.ask_program(expansion),
                Some(Ask::Text(text)) => return self.ask_text(text),
                Some(Ask::Run { program, tests }) => {
                    let key = (program, tests);
                    match self.runs.get(&key) {
                        // A program met again on the same tests is not run again.
                        Some(verdict) => {
                            self.method.absorb_run(&verdict.clone(), &mut self.rng);
                            self.refresh_answer();
                        }
                        None => {
                            let request = self.scorer.request(&key.0);
                            let tests = key.1.iter().cloned().map(TestCase::Statement).collect();
                            let request = ProgramRequest { tests, data_tests: true, naive: false, ..request };
                            self.pending = Pending::Run(PythonBatch::untrusted(request), key);
                            return;
                        }
                    }
                }
            }
        }
    }

    /// The prompt's values: the method's own first, then the search's.
    fn render(&self, prompt_id: &str, values: &[(&str, &str)]) -> Result<Vec<ChatMessage>, String> {
        let own = self.method.prompt_values();
        let mut all: Vec<(&str, &str)> = own.iter().map(|(name, value)| (*name, value.as_str())).collect();
        all.extend_from_slice(values);
        self.prompts.render(prompt_id, &all)
    }

    fn ask_program(&mut self, expansion: Expansion) {
        let example = expansion.parent.as_ref().and_then(|e| e.example.clone());
        let none = || "None".to_owned();
        let error = expansion.parent.as_ref().and_then(|e| e.error.clone()).unwrap_or_else(none);
        let (input, expected, actual) =
            example.map_or_else(|| (none(), none(), none()), |e| (e.input, e.expected, e.actual));
        let values = [
            ("task", self.task.description.as_str()),
            ("code", &expansion.code),
            ("input", &input),
            ("expected", &expected),
            ("actual", &actual),
            ("error", &error),
            ("io_format", self.task.io_format()),
        ];
        let prompt_id = self.method.prompt_id(expansion.kind);
        match self.render(prompt_id, &values) {
            Ok(mut messages) => {
                if let Some(start) = self.method.reply_start() {
                    messages.push(ChatMessage::new("assistant", start));
                }
                let mut call = ChatCall { prompt_id: prompt_id.into(), agent: expansion.kind.name().into(), messages };
                prefill_call(self.prefill, &mut call, &expansion);
                self.pending = Pending::Chat(call, expansion);
            }
            // `new` checked the prompts, so this is a broken invariant; end the search with it.
            Err(message) => self.finish(message),
        }
    }

    fn ask_text(&mut self, text: TextAsk) {
        let values = [("task", self.task.description.as_str()), ("code", &text.code), ("feedback", &text.feedback)];
        let prompt_id = text.act.prompt_id();
        match self.render(prompt_id, &values) {
            Ok(messages) => {
                let call = ChatCall { prompt_id: prompt_id.into(), agent: text.act.name().into(), messages };
                self.pending = Pending::Text(call, text);
            }
            Err(message) => self.finish(message),
        }
    }
}
