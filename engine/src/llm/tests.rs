use super::*;

#[test]
fn presets_are_valid_settings_and_custom_needs_a_url() {
    for preset in PRESETS.iter().filter(|p| p.id != "custom") {
        assert_eq!(ProviderSettings::from_preset(preset).validate(), Ok(()), "{}", preset.id);
    }
    let custom = ProviderSettings::from_preset(preset("custom").unwrap());
    assert!(custom.validate().unwrap_err().starts_with("base URL"));
    let settings = ProviderSettings { base_url: "http://127.0.0.1:9/v1/".into(), ..ProviderSettings::default() };
    assert_eq!(settings.endpoint(), "http://127.0.0.1:9/v1/chat/completions");
    let bad = ProviderSettings { temperature: 3.0, ..ProviderSettings::default() };
    assert_eq!(bad.validate().unwrap_err(), "temperature: 3 is outside 0–2");
    let bad = ProviderSettings { top_p: 0.0, ..ProviderSettings::default() };
    assert!(bad.validate().unwrap_err().starts_with("top-p"));
}

#[test]
fn the_model_in_the_tab_is_a_gguf_file_named_after_it() {
    let in_tab = ProviderSettings::from_preset(preset(IN_TAB).unwrap());
    assert!(in_tab.runs_in_tab());
    assert!(!ProviderSettings::default().runs_in_tab());
    assert_eq!(in_tab.model, ProviderSettings::model_from_file(&in_tab.base_url));
    assert_eq!(ProviderSettings::model_from_file("http://127.0.0.1:8/m/tiny-coder.gguf?x=1"), "tiny-coder");
    let not_a_model = ProviderSettings { base_url: "https://example.org/v1".into(), ..in_tab.clone() };
    assert_eq!(
        not_a_model.validate().unwrap_err(),
        "model file: \"https://example.org/v1\" is not the address of a .gguf file"
    );
    let with_query = ProviderSettings { base_url: "https://example.org/a.gguf?download=true".into(), ..in_tab.clone() };
    assert_eq!(with_query.validate(), Ok(()));
    // A file from the user's disk is known by its name alone, and only the in-tab provider reads one.
    let address = ProviderSettings::local_model_address("C:\\models\\tiny-coder.gguf");
    assert_eq!(address, "file:///tiny-coder.gguf");
    assert_eq!(ProviderSettings::model_from_file(&address), "tiny-coder");
    let local = ProviderSettings {
        model: ProviderSettings::model_from_file(&address),
        base_url: address.clone(),
        ..in_tab.clone()
    };
    assert!(local.is_local_model() && !in_tab.is_local_model());
    assert_eq!(local.label(), "tiny-coder (in this tab, from file:///tiny-coder.gguf)");
    assert_eq!(ProviderSettings::default().label(), ProviderSettings::default().model);
    assert_eq!(local.validate(), Ok(()));
    let endpoint = ProviderSettings { base_url: address, ..ProviderSettings::default() };
    assert!(endpoint.validate().unwrap_err().starts_with("base URL"));
}

#[test]
fn the_request_body_carries_sampling_settings_and_asks_for_streamed_usage() {
    let settings = ProviderSettings::default();
    let body: Value = serde_json::from_str(&settings.request_body(&[ChatMessage::new("user", "hi")], true)).unwrap();
    assert_eq!(body["model"], settings.model.as_str());
    assert_eq!(body["messages"][0]["content"], "hi");
    assert_eq!(body["max_tokens"], 1024);
    assert_eq!(body["stream_options"]["include_usage"], true);
    let body: Value = serde_json::from_str(&settings.request_body(&[], false)).unwrap();
    assert!(body.get("stream_options").is_none());
    assert!(body.get("continue_final_message").is_none());
    // A last assistant message is a prefill, which the server is asked to continue.
    let prefilled = [ChatMessage::new("user", "go on"), ChatMessage::new("assistant", "```python\ndef f(")];
    let body: Value = serde_json::from_str(&settings.request_body(&prefilled, true)).unwrap();
    assert_eq!(
        (body["continue_final_message"].as_bool(), body["add_generation_prompt"].as_bool()),
        (Some(true), Some(false))
    );
}

#[test]
fn sse_events_survive_any_chunking() {
    let stream = ": keep-alive\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\r\n\r\ndata: {\"choices\":[{\"delta\":{\"content\":\"lo\"}}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":2}}\n\ndata: [DONE]\n\n";
    for size in [1, 3, 17, stream.len()] {
        let mut decoder = SseDecoder::default();
        let chars: Vec<char> = stream.chars().collect();
        let data: Vec<String> = chars.chunks(size).flat_map(|c| decoder.feed(&c.iter().collect::<String>())).collect();
        let events: Vec<StreamEvent> = data.iter().flat_map(|d| parse_stream_data(d).unwrap()).collect();
        assert_eq!(
            events,
            vec![
                StreamEvent::Text("Hel".into()),
                StreamEvent::Text("lo".into()),
                StreamEvent::Usage(Usage { prompt_tokens: 7, completion_tokens: 2, writing_ms: 0 }),
                StreamEvent::Done
            ],
            "chunks of {size}"
        );
    }
    let mut decoder = SseDecoder::default();
    assert!(decoder.feed("data: [DONE]").is_empty());
    assert_eq!(decoder.finish().as_deref(), Some("[DONE]"));
}

#[test]
fn malformed_and_empty_replies_are_named() {
    assert_eq!(parse_stream_data("{oops").unwrap_err().kind, FailureKind::Malformed);
    let error = parse_stream_data("{\"error\":{\"message\":\"overloaded\"}}").unwrap_err();
    assert_eq!(error.message, "the stream reported an error: overloaded");
    assert_eq!(parse_completion("{\"choices\":[]}").unwrap_err().kind, FailureKind::Empty);
    assert_eq!(parse_completion("<html>").unwrap_err().kind, FailureKind::Malformed);
    let (text, usage) = parse_completion(
        "{\"choices\":[{\"message\":{\"content\":\"ok\"}}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}",
    )
    .unwrap();
    assert_eq!((text.as_str(), usage), ("ok", Some(Usage { prompt_tokens: 3, completion_tokens: 1, writing_ms: 0 })));
}

#[test]
fn a_failure_that_quotes_the_key_is_masked() {
    let failure = LlmFailure::new(FailureKind::Network, "could not reach https://x/?key=abc-123 (abc-123)");
    assert_eq!(failure.hiding("abc-123").message, "could not reach https://x/?key=[hidden] ([hidden])");
    assert_eq!(LlmFailure::new(FailureKind::Network, "no key").hiding("").message, "no key");
}

#[test]
fn statuses_become_actionable_messages_without_the_key() {
    let settings = ProviderSettings::default();
    let quoted = "{\"error\":{\"message\":\"Incorrect API key provided: sk-abc123def456ghi789jkl. You can find your key at ...\"}}";
    let auth = LlmFailure::from_status(401, quoted, &settings);
    assert_eq!(auth.kind, FailureKind::Auth);
    assert!(auth.message.contains("API key is missing or wrong"), "{}", auth.message);
    assert!(!auth.message.contains("sk-abc123"), "{}", auth.message);
    assert!(auth.message.contains("[hidden]"));
    let model = LlmFailure::from_status(404, "{}", &settings);
    assert_eq!(model.kind, FailureKind::UnknownModel);
    assert!(model.message.contains(&settings.model));
    let model = LlmFailure::from_status(400, "{\"error\":{\"message\":\"model not found\"}}", &settings);
    assert_eq!(model.kind, FailureKind::UnknownModel);
    assert!(LlmFailure::from_status(429, "", &settings).kind.is_retryable());
    assert!(LlmFailure::from_status(503, "", &settings).kind.is_retryable());
    assert!(!LlmFailure::from_status(401, "", &settings).kind.is_retryable());
    assert!(LlmFailure::from_status(401, "", &settings).kind.is_fatal());
    assert!(!LlmFailure::from_status(503, "", &settings).kind.is_fatal());
    assert!(!FailureKind::Malformed.is_fatal(), "a garbled reply may come out right next time");
    let ollama = ProviderSettings::from_preset(preset("ollama").unwrap());
    assert!(LlmFailure::network(&ollama, "TypeError: Failed to fetch").message.contains("OLLAMA_ORIGINS"));
}

#[test]
fn retries_back_off_exponentially_and_honour_retry_after() {
    assert_eq!([0, 1, 2, 3].map(|a| retry_delay_ms(a, None)), [1000, 2000, 4000, 8000]);
    assert_eq!(retry_delay_ms(9, None), 30_000);
    assert_eq!(retry_delay_ms(0, Some("2")), 2000);
    assert_eq!(retry_delay_ms(0, Some("0.25")), 250);
    assert_eq!(retry_delay_ms(0, Some("3600")), 60_000);
    assert_eq!(retry_delay_ms(1, Some("Wed, 21 Oct 2015 07:28:00 GMT")), 2000);
}

#[test]
fn usage_costs_at_the_settings_prices() {
    let settings = ProviderSettings {
        price_prompt_per_million: 0.15,
        price_completion_per_million: 0.60,
        ..ProviderSettings::default()
    };
    let usage = Usage { prompt_tokens: 1_000_000, completion_tokens: 500_000, writing_ms: 0 };
    assert!((usage.cost(settings.prices()) - 0.45).abs() < 1e-12);
    assert_eq!(Usage::estimate(&[ChatMessage::new("user", "12345678")], "123").total(), 3);
}

#[test]
fn the_speed_is_the_completion_over_the_time_measured_writing_it_summed_over_calls() {
    // 120 tokens in 4 s, then 30 in 1 s: 150 in 5 s, 30 a second. 40 more in 1 s makes 190 in 6 s,
    // 31.7 a second, where the mean of the three calls' rates would say 33.3.
    let mut total = Usage { prompt_tokens: 500, completion_tokens: 120, writing_ms: 4000 };
    total.add(Usage { prompt_tokens: 500, completion_tokens: 30, writing_ms: 1000 });
    assert_eq!(total.tokens_per_second(), Some(30.0));
    total.add(Usage { prompt_tokens: 0, completion_tokens: 40, writing_ms: 1000 });
    assert_eq!(
        total.speed_on("llama.cpp on the CPU, 2 threads").unwrap(),
        "31.7 tokens/s on llama.cpp on the CPU, 2 threads"
    );
    assert_eq!(total.speed_on("").unwrap(), "31.7 tokens/s");
    // Nothing measured (the simulated LLM, a record from before): no speed, and none in its JSON.
    let unmeasured = Usage { prompt_tokens: 5, completion_tokens: 5, writing_ms: 0 };
    assert_eq!(unmeasured.speed_on("anything"), None);
    assert_eq!(serde_json::to_string(&unmeasured).unwrap(), r#"{"prompt_tokens":5,"completion_tokens":5}"#);
}

#[test]
fn code_is_found_with_fences_several_blocks_prose_or_none() {
    let fenced = "Here you go:\n```python\ndef f():\n    return 1\n```\nThis returns one.";
    assert_eq!(extract_code(fenced).unwrap(), "def f():\n    return 1\n");
    let several = "Bug:\n```python\nreturn x\n```\n## Correct code\n```python\ndef f(x):\n    return x + 1\n```\n";
    assert_eq!(extract_code(several).unwrap(), "def f(x):\n    return x + 1\n");
    let untagged = "```\ndef g():\n    pass\n```";
    assert_eq!(extract_code(untagged).unwrap(), "def g():\n    pass\n");
    let other_language = "```bash\npip install x\n```\n```py\nimport x\n```";
    assert_eq!(extract_code(other_language).unwrap(), "import x\n");
    let bare = "Sure! Here is the function.\ndef h(a):\n    return a * 2\n";
    assert_eq!(extract_code(bare).unwrap(), "def h(a):\n    return a * 2\n");
    let cut = "```python\ndef k():\n    return [1,";
    assert_eq!(extract_code(cut).unwrap(), "def k():\n    return [1,\n");
    let thinking = "<think>maybe ```python\nwrong()\n``` no</think>\n```python\nright()\n```";
    assert_eq!(extract_code(thinking).unwrap(), "right()\n");
    assert_eq!(extract_code("I cannot help with that."), None);
    assert_eq!(extract_code("```python\n\n```"), None);
}
