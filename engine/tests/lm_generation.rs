//! Generation (issue 69): PPO's rollouts, drawn side by side in one batch, are the replies that one
//! generation at a time writes, whatever the lengths of the prompts beside them; greedy, every row
//! is the greedy reply, ended by its end-of-turn token.

mod lm_fixtures;

use engine::lm::chat_template::Message;
use engine::lm::generation::{ReplyBatch, Sampling};
use engine::lm::language_model::LanguageModel;
use engine::lm::model::Transformer;
use engine::rng::RunRng;
use lm_fixtures::load;
use rand::SeedableRng;

/// The greedy reply written one token at a time, with the end-of-turn token that stopped it.
fn one_at_a_time(model: &LanguageModel, messages: &[Message], max_tokens: usize) -> Vec<u32> {
    let mut rng = RunRng::seed_from_u64(0);
    let mut generation = model.reply(messages, Sampling::GREEDY, max_tokens).unwrap();
    while generation.step(&model.transformer, &mut rng).is_some() {}
    let mut reply = generation.reply.clone();
    if generation.stopped.is_some_and(|s| s.name() == "end") {
        reply.extend(model.tokenizer.end_of_generation.last());
    }
    reply
}

/// `count` replies to each of `prompts`, drawn side by side to their ends.
fn sample_replies(
    model: &Transformer,
    prompts: &[Vec<u32>],
    count: usize,
    sampling: Sampling,
    max_tokens: usize,
    end: &[u32],
    rng: &mut RunRng,
) -> Vec<Vec<u32>> {
    let mut batch = ReplyBatch::new(model, prompts, count, sampling, max_tokens, end);
    batch.advance(model, usize::MAX, rng);
    assert!(batch.is_done());
    batch.into_replies()
}

fn user(content: &str) -> Vec<Message> {
    vec![Message { role: "user".into(), content: content.into() }]
}

#[test]
fn rollouts_drawn_side_by_side_are_the_replies_written_one_at_a_time() {
    let model = load("tiny-coder.gguf");
    let messages = user("Write `shout(s)`: s in capitals.");
    let expected = one_at_a_time(&model, &messages, 40);
    assert!(expected.len() > 3, "{expected:?}");
    let prompt = model.prompt(&messages).unwrap();
    let end = &model.tokenizer.end_of_generation;
    let mut rng = RunRng::seed_from_u64(1);
    let rows = sample_replies(&model.transformer, &[prompt], 3, Sampling::GREEDY, 40, end, &mut rng);
    assert_eq!(rows, vec![expected; 3]);
    // Sampled rows differ from one another (the small code model: the fixture is sharpened to
    // answer alike at any temperature) and each stops at its own end of turn or at the cap.
    let model = code_model();
    let prompt = model.prompt(&messages).unwrap();
    let end = &model.tokenizer.end_of_generation;
    let warm = Sampling { temperature: 1.0, top_p: 1.0 };
    let sampled = sample_replies(&model.transformer, &[prompt], 4, warm, 12, end, &mut rng);
    assert!(sampled.iter().all(|r| r.len() <= 12 && r[..r.len() - 1].iter().all(|t| !end.contains(t))));
    assert!(sampled.windows(2).any(|pair| pair[0] != pair[1]), "{sampled:?}");
}

#[test]
fn prompts_of_different_lengths_drawn_side_by_side_answer_as_each_alone() {
    // The shorter prompt is padded on the left: its rows must be the replies it gets alone, token
    // for token, so the padding moves neither the attention nor the positions.
    let model = code_model();
    let asks = [
        user("Write a function count_odd(values) that returns the number of odd values in the list."),
        user("Write total(xs): the sum of xs."),
    ];
    let prompts: Vec<Vec<u32>> = asks.iter().map(|m| model.prompt(m).unwrap()).collect();
    assert_ne!(prompts[0].len(), prompts[1].len());
    let end = &model.tokenizer.end_of_generation;
    let mut rng = RunRng::seed_from_u64(2);
    let rows = sample_replies(&model.transformer, &prompts, 2, Sampling::GREEDY, 60, end, &mut rng);
    let alone: Vec<Vec<u32>> = asks.iter().map(|m| one_at_a_time(&model, m, 60)).collect();
    assert_eq!(rows, vec![alone[0].clone(), alone[0].clone(), alone[1].clone(), alone[1].clone()]);
}

fn code_model() -> LanguageModel {
    load("rlcg-coder.gguf")
}

#[test]
fn the_async_step_that_webgpu_awaits_writes_what_the_blocking_step_writes() {
    // The page's worker awaits every token (`step_async`), on the CPU as on WebGPU.
    let model = load("tiny-coder.gguf");
    let messages = [Message { role: "user".into(), content: "Task:\ndef sum_two(a, b):".into() }];
    let sampling = Sampling { temperature: 0.8, top_p: 0.9 };
    let mut blocking = model.reply(&messages, sampling, 24).unwrap();
    let mut rng = RunRng::seed_from_u64(5);
    while blocking.step(&model.transformer, &mut rng).is_some() {}
    let mut awaited = model.reply(&messages, sampling, 24).unwrap();
    let mut rng = RunRng::seed_from_u64(5);
    while engine::device::completed(awaited.step_async(&model.transformer, &mut rng)).unwrap().is_some() {}
    assert_eq!(awaited.reply, blocking.reply);
    assert_eq!(awaited.stopped, blocking.stopped);
    assert!(!awaited.reply.is_empty());
}
