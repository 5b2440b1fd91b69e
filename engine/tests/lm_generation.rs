//! Generation (issue 69): PPO's rollouts, drawn side by side in one batch, are the replies that one
//! generation at a time writes; greedy, every row is the greedy reply, ended by its end-of-turn
//! token.

mod lm_fixtures;

use engine::lm::chat_template::Message;
use engine::lm::generation::{Sampling, sample_replies};
use engine::lm::language_model::LanguageModel;
use engine::lm::model::Numerics;
use engine::rng::RunRng;
use lm_fixtures::{cpu, load};
use rand::SeedableRng;

#[test]
fn rollouts_drawn_side_by_side_are_the_replies_written_one_at_a_time() {
    let model = load("tiny-coder.gguf");
    let messages = [Message { role: "user".into(), content: "Write `shout(s)`: s in capitals.".into() }];
    let mut rng = RunRng::seed_from_u64(1);
    let mut generation = model.reply(&messages, Sampling::GREEDY, 40).unwrap();
    while generation.step(&model.transformer, &mut rng).is_some() {}
    let prompt = model.prompt(&messages).unwrap();
    let end = &model.tokenizer.end_of_generation;
    let rows = sample_replies(&model.transformer, &prompt, 3, Sampling::GREEDY, 40, end, &mut rng);
    let mut expected = generation.reply.clone();
    if generation.stopped.is_some_and(|s| s.name() == "end") {
        expected.extend(end.last());
    }
    assert!(expected.len() > 3, "{expected:?}");
    assert_eq!(rows, vec![expected; 3]);
    // Sampled rows differ from one another (the small code model: the fixture is sharpened to
    // answer alike at any temperature) and each stops at its own end of turn or at the cap.
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../models/rlcg-coder.gguf")).unwrap();
    let model = LanguageModel::load(&bytes, &cpu(), Numerics::LlamaCpp).unwrap();
    let prompt = model.prompt(&messages).unwrap();
    let end = &model.tokenizer.end_of_generation;
    let warm = Sampling { temperature: 1.0, top_p: 1.0 };
    let sampled = sample_replies(&model.transformer, &prompt, 4, warm, 12, end, &mut rng);
    assert!(sampled.iter().all(|r| r.len() <= 12 && r[..r.len() - 1].iter().all(|t| !end.contains(t))));
    assert!(sampled.windows(2).any(|pair| pair[0] != pair[1]), "{sampled:?}");
}
