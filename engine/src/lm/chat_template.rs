//! A GGUF file's chat template (`tokenizer.chat_template`, Jinja) applied to OpenAI-style messages,
//! as llama.cpp's server and llama-cpp-python apply it: Jinja with `trim_blocks` and
//! `lstrip_blocks`, the file's BOS and EOS texts, and a last assistant message continued rather
//! than closed (the page's prefill).

use minijinja::{Environment, ErrorKind, context};
use serde::{Deserialize, Serialize};

/// One chat message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub role: String,
    pub content: String,
}

/// A chat template, checked to parse.
#[derive(Clone)]
pub struct ChatTemplate {
    environment: Environment<'static>,
    source: String,
    bos: String,
    eos: String,
}

impl ChatTemplate {
    /// `source`, with the texts of the file's BOS and EOS tokens.
    pub fn new(source: &str, bos: &str, eos: &str) -> Result<Self, String> {
        let mut environment = Environment::new();
        environment.set_trim_blocks(true);
        environment.set_lstrip_blocks(true);
        environment.add_function("raise_exception", |message: String| -> Result<String, minijinja::Error> {
            Err(minijinja::Error::new(ErrorKind::InvalidOperation, message))
        });
        minijinja_contrib::add_to_environment(&mut environment);
        environment.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
        // Parsed once here so that a bad template is named at load, not at the first reply.
        Environment::new().template_from_str(source).map_err(|e| format!("the chat template does not parse: {e}"))?;
        Ok(Self { environment, source: source.into(), bos: bos.into(), eos: eos.into() })
    }

    /// The prompt for `messages`, ready for the reply: a last assistant message is the reply's
    /// start, which the model continues.
    pub fn render(&self, messages: &[Message]) -> Result<String, String> {
        let (earlier, prefill) = match messages.split_last() {
            Some((last, earlier)) if last.role == "assistant" => (earlier, Some(last.content.as_str())),
            _ => (messages, None),
        };
        let context = context! {
            messages => earlier,
            add_generation_prompt => true,
            bos_token => self.bos,
            eos_token => self.eos,
        };
        let prompt =
            self.environment.render_str(&self.source, context).map_err(|e| format!("the chat template failed: {e}"))?;
        Ok(prompt + prefill.unwrap_or(""))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(role: &str, content: &str) -> Message {
        Message { role: role.into(), content: content.into() }
    }

    const CHATML: &str = "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

    #[test]
    fn chatml_formats_turns_and_opens_the_reply() {
        let template = ChatTemplate::new(CHATML, "", "<|im_end|>").unwrap();
        let prompt = template.render(&[message("system", "Be brief."), message("user", "Hi")]).unwrap();
        assert_eq!(
            prompt,
            "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
        );
    }

    #[test]
    fn a_last_assistant_message_is_continued() {
        let template = ChatTemplate::new(CHATML, "", "<|im_end|>").unwrap();
        let prompt = template.render(&[message("user", "Hi"), message("assistant", "```python")]).unwrap();
        assert!(prompt.ends_with("<|im_start|>assistant\n```python"), "{prompt:?}");
    }

    #[test]
    fn a_template_that_raises_says_why() {
        let template = ChatTemplate::new("{{ raise_exception('roles must alternate') }}", "", "").unwrap();
        let error = template.render(&[message("user", "Hi")]).unwrap_err();
        assert!(error.contains("roles must alternate"), "{error}");
    }
}
