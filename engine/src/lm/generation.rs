//! Generation: sampling (greedy at temperature 0, otherwise temperature and top-p from the run's
//! RNG) one token at a time on the key-value cache. A [`Generation`] yields one token per
//! [`Generation::step`], so its caller streams the reply and can stop it at any token.

use burn::tensor::{Int, Tensor, TensorData};
use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::device::{f32_values, resolved};
use crate::lm::kv_cache::KvCache;
use crate::lm::model::{Transformer, Weights};
use crate::rng::RunRng;

/// How the next token is drawn from the logits.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sampling {
    /// 0: the most likely token (greedy).
    pub temperature: f32,
    /// The smallest set of most likely tokens whose probability reaches this (nucleus sampling).
    pub top_p: f32,
}

impl Sampling {
    pub const GREEDY: Sampling = Sampling { temperature: 0.0, top_p: 1.0 };

    /// A token drawn from `logits`.
    pub fn draw(&self, logits: &[f32], rng: &mut RunRng) -> u32 {
        let best =
            || logits.iter().enumerate().fold((0, f32::NEG_INFINITY), |b, (i, &l)| if l > b.1 { (i, l) } else { b }).0;
        if self.temperature <= 0.0 {
            return best() as u32;
        }
        let top = logits.iter().fold(f32::NEG_INFINITY, |m, &l| m.max(l));
        let mut order: Vec<(usize, f32)> =
            logits.iter().enumerate().map(|(i, &l)| (i, ((l - top) / self.temperature).exp())).collect();
        let total: f32 = order.iter().map(|&(_, p)| p).sum();
        order.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut kept = 0.0;
        let cut = order
            .iter()
            .position(|&(_, p)| {
                kept += p / total;
                kept >= self.top_p
            })
            .map_or(order.len(), |i| i + 1);
        let nucleus = &order[..cut];
        let mass: f32 = nucleus.iter().map(|&(_, p)| p).sum();
        let mut draw = rng.random::<f32>() * mass;
        for &(token, p) in nucleus {
            draw -= p;
            if draw <= 0.0 {
                return token as u32;
            }
        }
        nucleus.last().map_or_else(|| best() as u32, |&(token, _)| token as u32)
    }
}

/// Why a generation stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The model ended its reply (an end-of-generation token, not kept in the reply).
    EndOfGeneration,
    /// The reply reached its token limit.
    MaxTokens,
    /// The prompt and the reply filled the model's context.
    ContextFull,
}

impl Stop {
    pub fn name(self) -> &'static str {
        match self {
            Stop::EndOfGeneration => "end",
            Stop::MaxTokens => "max_tokens",
            Stop::ContextFull => "context_full",
        }
    }
}

/// One reply being written.
pub struct Generation {
    cache: KvCache,
    /// Tokens to feed before the next draw: the prompt first, then each drawn token.
    pending: Vec<u32>,
    pub reply: Vec<u32>,
    pub prompt_tokens: usize,
    sampling: Sampling,
    max_tokens: usize,
    end_of_generation: Vec<u32>,
    pub stopped: Option<Stop>,
}

impl Generation {
    pub fn new(prompt: Vec<u32>, sampling: Sampling, max_tokens: usize, end_of_generation: Vec<u32>) -> Self {
        Self {
            cache: KvCache::default(),
            prompt_tokens: prompt.len(),
            pending: prompt,
            reply: Vec::new(),
            sampling,
            max_tokens,
            end_of_generation,
            stopped: None,
        }
    }

    /// Feeds what is pending and draws the next token: `Some(token)` when it joins the reply,
    /// `None` once the generation has stopped (`stopped` says why).
    pub fn step(&mut self, model: &Transformer, rng: &mut RunRng) -> Option<u32> {
        if !self.may_go_on(model) {
            return None;
        }
        let logits = self.next_logits(model);
        self.take(&logits, rng)
    }

    /// [`Self::step`] on a device that cannot block on its values (WebGPU in a browser).
    pub async fn step_async(&mut self, model: &Transformer, rng: &mut RunRng) -> Result<Option<u32>, String> {
        if !self.may_go_on(model) {
            return Ok(None);
        }
        let logits = self.next_logits_async(model).await?;
        Ok(self.take(&logits, rng))
    }

    /// Whether another token may be drawn; if not, why it stopped is set.
    fn may_go_on(&mut self, model: &Transformer) -> bool {
        if self.stopped.is_none() && self.reply.len() >= self.max_tokens {
            self.stopped = Some(Stop::MaxTokens);
        }
        if self.stopped.is_none() && self.cache.length() + self.pending.len() >= model.config.context {
            self.stopped = Some(Stop::ContextFull);
        }
        self.stopped.is_none()
    }

    /// Draws the next token from `logits`: it joins the reply, or ends it.
    fn take(&mut self, logits: &[f32], rng: &mut RunRng) -> Option<u32> {
        let token = self.sampling.draw(logits, rng);
        if self.end_of_generation.contains(&token) {
            self.stopped = Some(Stop::EndOfGeneration);
            return None;
        }
        self.reply.push(token);
        self.pending.push(token);
        Some(token)
    }

    /// The logits after the pending tokens, which join the cache.
    pub fn next_logits(&mut self, model: &Transformer) -> Vec<f32> {
        self.logits_tensor(model).into_data().try_into_vec::<f32>().expect("logits are f32")
    }

    /// [`Self::next_logits`] on a device that cannot block on its values.
    pub async fn next_logits_async(&mut self, model: &Transformer) -> Result<Vec<f32>, String> {
        let data = self.logits_tensor(model).into_data_async().await.map_err(|e| format!("{e:?}"))?;
        data.try_into_vec::<f32>().map_err(|e| format!("the logits are not f32: {e:?}"))
    }

    fn logits_tensor(&mut self, model: &Transformer) -> Tensor<2> {
        let device = model.device();
        let tokens: Vec<i64> = self.pending.drain(..).map(i64::from).collect();
        let time = tokens.len();
        let tokens = Tensor::<2, Int>::from_data(TensorData::new(tokens, [1, time]), &device);
        let hidden = model.hidden(tokens, &mut self.cache, Weights::Adapted);
        let last = hidden.narrow(1, time - 1, 1).reshape([1, model.config.embedding]);
        model.logits(last)
    }
}

/// `count` replies to each of `prompts` drawn side by side, one batch row each, so that every
/// step runs once for all of them (a PPO batch's rollouts, a measurement's samples), a few tokens
/// at a time ([`ReplyBatch::advance`]). Shorter prompts are padded on the left, which no row
/// attends to ([`KvCache::left_padded`]), so a row's numbers are those of its prompt alone. Rows
/// draw in order from the caller's stream at every step, and a row that has stopped draws no more.
pub struct ReplyBatch {
    cache: KvCache,
    /// The tokens to feed next: the padded prompts, then each row's last token.
    feed: Vec<i64>,
    replies: Vec<Vec<u32>>,
    open: Vec<bool>,
    sampling: Sampling,
    tokens_left: usize,
    end_of_generation: Vec<u32>,
}

impl ReplyBatch {
    pub fn new(
        model: &Transformer,
        prompts: &[Vec<u32>],
        count: usize,
        sampling: Sampling,
        max_tokens: usize,
        end_of_generation: &[u32],
    ) -> Self {
        let rows = prompts.len() * count;
        let longest = prompts.iter().map(Vec::len).max().unwrap_or(0);
        let padding: Vec<usize> = prompts.iter().flat_map(|p| std::iter::repeat_n(longest - p.len(), count)).collect();
        let feed = prompts
            .iter()
            .flat_map(|p| std::iter::repeat_n(p, count))
            .flat_map(|p| std::iter::repeat_n(0, longest - p.len()).chain(p.iter().map(|&t| i64::from(t))))
            .collect();
        Self {
            cache: KvCache::left_padded(padding),
            feed,
            replies: vec![Vec::new(); rows],
            open: vec![longest > 0; rows],
            sampling,
            tokens_left: max_tokens.min(model.config.context.saturating_sub(longest)),
            end_of_generation: end_of_generation.to_vec(),
        }
    }

    /// Whether every row has stopped.
    pub fn is_done(&self) -> bool {
        self.tokens_left == 0 || !self.open.contains(&true)
    }

    /// Draws up to `tokens` more tokens in each open row.
    pub fn advance(&mut self, model: &Transformer, tokens: usize, rng: &mut RunRng) {
        resolved(self.advance_async(model, tokens, rng));
    }

    /// [`Self::advance`] on a device that cannot block on its values (WebGPU in a browser).
    pub async fn advance_async(&mut self, model: &Transformer, tokens: usize, rng: &mut RunRng) -> Result<(), String> {
        let (rows, d, vocabulary) = (self.replies.len(), model.config.embedding, model.config.vocabulary);
        for _ in 0..tokens {
            if self.is_done() {
                return Ok(());
            }
            let time = self.feed.len() / rows;
            let feed = TensorData::new(std::mem::take(&mut self.feed), [rows, time]);
            let hidden =
                model.hidden(Tensor::<2, Int>::from_data(feed, &model.device()), &mut self.cache, Weights::Adapted);
            let last = hidden.narrow(1, time - 1, 1).reshape([rows, d]);
            let logits = f32_values(model.logits(last).into_data_async().await)?;
            for (row, reply) in self.replies.iter_mut().enumerate() {
                if self.open[row] {
                    let token = self.sampling.draw(&logits[row * vocabulary..(row + 1) * vocabulary], rng);
                    reply.push(token);
                    self.open[row] = !self.end_of_generation.contains(&token);
                }
                self.feed.push(i64::from(*reply.last().unwrap_or(&0)));
            }
            self.tokens_left -= 1;
        }
        Ok(())
    }

    /// Each row's tokens, with the end-of-generation token that stopped it, prompt by prompt.
    pub fn into_replies(self) -> Vec<Vec<u32>> {
        self.replies
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    #[test]
    fn greedy_takes_the_first_best() {
        let mut rng = RunRng::seed_from_u64(0);
        assert_eq!(Sampling::GREEDY.draw(&[0.1, 2.0, 2.0, -1.0], &mut rng), 1);
    }

    #[test]
    fn top_p_keeps_only_the_nucleus() {
        // Probabilities at temperature 1: e^0 : e^-10 : e^-10 → the first holds 99.99%, so a top-p
        // of 0.9 keeps it alone.
        let sampling = Sampling { temperature: 1.0, top_p: 0.9 };
        let mut rng = RunRng::seed_from_u64(7);
        assert!((0..200).all(|_| sampling.draw(&[0.0, -10.0, -10.0], &mut rng) == 0));
    }

    #[test]
    fn temperature_one_draws_in_proportion() {
        // ln 3 against 0: three to one.
        let sampling = Sampling { temperature: 1.0, top_p: 1.0 };
        let mut rng = RunRng::seed_from_u64(3);
        let firsts = (0..4000).filter(|_| sampling.draw(&[3f32.ln(), 0.0], &mut rng) == 0).count();
        assert!((2850..3150).contains(&firsts), "{firsts} of 4000, expected about 3000");
    }
}
