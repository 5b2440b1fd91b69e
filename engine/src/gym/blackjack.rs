//! Blackjack-v1 (Gymnasium 0.29.1 `toy_text/blackjack.py`) with `sab=True`, as seed 004 uses it:
//! Sutton and Barto's rules, an infinite deck (ace 1, 2–9, 10 four times), the dealer drawing to
//! 17. The observation is (player's sum, dealer's showing card, usable ace). Hit: a card, −1 and
//! the end on a bust. Stick: the dealer plays, and the comparison gives +1, 0 or −1; a natural
//! (ace and ten) wins unless the dealer has one too.
//!
//! The cards are drawn from the run's RNG, so a recorded transition cannot be replayed card for
//! card: [`Blackjack::possible`] says whether the rules allow it.
//!
//! Its state index for tabular agents is `(sum·11 + card)·2 + ace`; its features the three values
//! scaled to 0–1.

use rand::Rng;

use super::scene::{GROUND, INK, Scene};
use super::{GymObs, GymStep, Gymnasium, ObsKind, PlanningReproduction, not_an_observation};
use crate::rng::RunRng;

const DECK: [i64; 13] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10];
/// The state index's range: sums 0–31, cards 0–10, and the ace flag.
const STATES: usize = 32 * 11 * 2;

#[derive(Clone, Debug, PartialEq)]
pub struct Blackjack {
    pub player: Vec<i64>,
    pub dealer: Vec<i64>,
}

fn draw(rng: &mut RunRng) -> i64 {
    DECK[rng.random_range(0..DECK.len())]
}

fn usable_ace(hand: &[i64]) -> bool {
    hand.contains(&1) && hand.iter().sum::<i64>() + 10 <= 21
}

fn sum_hand(hand: &[i64]) -> i64 {
    hand.iter().sum::<i64>() + if usable_ace(hand) { 10 } else { 0 }
}

/// 0 for a bust.
fn score(hand: &[i64]) -> i64 {
    let sum = sum_hand(hand);
    if sum > 21 { 0 } else { sum }
}

fn is_natural(hand: &[i64]) -> bool {
    let mut sorted = hand.to_vec();
    sorted.sort_unstable();
    sorted == [1, 10]
}

impl Blackjack {
    /// Whether the rules allow `obs` –`action`→ (`next`, `reward`, `terminated`) for some cards.
    pub fn possible(obs: [i64; 3], action: usize, next: [i64; 3], reward: f64, terminated: bool) -> bool {
        let [sum, card, ace] = obs;
        if next[1] != card {
            return false;
        }
        if action == 0 {
            // The dealer ends on 17–21 or busts (0). (A natural's +1 is among the outcomes of 21.)
            let player = if sum > 21 { 0 } else { sum };
            let outcomes =
                [0, 17, 18, 19, 20, 21].map(|dealer| f64::from(i8::from(player > dealer) - i8::from(player < dealer)));
            return next == obs && terminated && outcomes.contains(&reward);
        }
        // A hit: the hand's hard total grows by the card; an ace counts 11 while that fits.
        let hard = sum - 10 * ace;
        (1..=10).any(|drawn| {
            let hard = hard + drawn;
            let has_ace = ace == 1 || drawn == 1;
            let usable = has_ace && hard + 10 <= 21;
            let total = hard + if usable { 10 } else { 0 };
            let bust = total > 21;
            next == [total, card, i64::from(usable)] && terminated == bust && reward == if bust { -1.0 } else { 0.0 }
        })
    }
}

/// The observation behind a state index.
fn index_obs(state: usize) -> [i64; 3] {
    let state = state as i64;
    [state / 22, state / 2 % 11, state % 2]
}

/// A card as a picture: a white card with `text`, and a caption under it.
fn card(scene: &mut Scene, (x, y): (f64, f64), text: String, caption: &'static str) {
    scene.fill((x - 40.0, y - 55.0), (80.0, 110.0), "#ffffff");
    scene.outline((x - 40.0, y - 55.0), (80.0, 110.0), 2.0, INK);
    scene.text(text, (x, y), 34, INK);
    scene.text(caption, (x, y + 75.0), 14, GROUND);
}

impl Gymnasium for Blackjack {
    const NAME: &'static str = "Blackjack-v1";
    const SUMMARY: &'static str =
        "Seed 004 (Gymnasium): hit or stick against a dealer; an infinite deck, Sutton and Barto's rules";
    const ACTION_NAMES: &'static [&'static str] = &["stick", "hit"];
    const MAX_EPISODE_STEPS: Option<u32> = None;
    const OBSERVATION: ObsKind = ObsKind::Triple;
    const TABULAR_STATES: usize = STATES;
    const FEATURES: usize = 3;
    const DEFAULT_EPISODES: u32 = 20_000;
    const PAPER_ROW: usize = 4;
    const PAPER_RESULTS: [(f64, Option<f64>); 4] =
        [(0.83, Some(0.53)), (0.85, Some(0.41)), (0.93, Some(0.41)), (0.79, Some(0.59))];
    const WORLD_MODEL_DESCRIPTION: &'static str = include_str!("../../../tasks/world_models/Blackjack-v1.md");
    const WORLD_MODEL_BANK: &'static str = include_str!("../../../tasks/world_models/Blackjack-v1.bank.py");
    /// Its model draws cards: each pair is asked 16 times, and the table draws among the outcomes.
    const TABULATION_SAMPLES: usize = 16;
    /// At the paper's 10 episodes its R is noise (the cards decide), so 3000 per policy over three
    /// seeds; its returns lie within ±1, shown to three decimals.
    const PLANNING_REPRODUCTION: PlanningReproduction = PlanningReproduction { episodes: 3000, seeds: 3, decimals: 3 };

    fn reset(rng: &mut RunRng) -> Self {
        // Gymnasium deals the dealer first.
        let dealer = vec![draw(rng), draw(rng)];
        let player = vec![draw(rng), draw(rng)];
        Self { player, dealer }
    }

    /// A deal that shows `obs`: a player's hand of that sum and ace, the dealer's card and a
    /// hidden one (a ten; it only matters to a stick, whose outcome [`Self::possible`] judges).
    fn from_obs(obs: &GymObs) -> Result<Self, String> {
        let GymObs::Triple([sum, card, ace]) = *obs else { return Err(not_an_observation(obs, Self::NAME)) };
        let valid = (4..=31).contains(&sum)
            && (1..=10).contains(&card)
            && (0..=1).contains(&ace)
            && (ace == 0 || (12..=21).contains(&sum));
        if !valid {
            return Err(format!("({sum}, {card}, {ace}) is not a Blackjack observation"));
        }
        // A soft total as an ace and the rest; a hard one as one card of that value, which the
        // sums treat alike.
        let player = if ace == 1 { vec![1, sum - 11] } else { vec![sum] };
        Ok(Self { player, dealer: vec![card, 10] })
    }

    fn obs(&self) -> GymObs {
        GymObs::Triple([sum_hand(&self.player), self.dealer[0], i64::from(usable_ace(&self.player))])
    }
    /// Action 1 hits, 0 sticks.
    fn step(&mut self, action: usize, rng: &mut RunRng) -> GymStep {
        if action == 1 {
            self.player.push(draw(rng));
            let bust = sum_hand(&self.player) > 21;
            return GymStep { obs: self.obs(), reward: if bust { -1.0 } else { 0.0 }, terminated: bust };
        }
        while sum_hand(&self.dealer) < 17 {
            self.dealer.push(draw(rng));
        }
        let (player, dealer) = (score(&self.player), score(&self.dealer));
        let mut reward = f64::from(i8::from(player > dealer) - i8::from(player < dealer));
        if is_natural(&self.player) && !is_natural(&self.dealer) {
            reward = 1.0;
        }
        GymStep { obs: self.obs(), reward, terminated: true }
    }

    /// A win.
    fn success(reward: f64, terminated: bool, _truncated: bool) -> bool {
        terminated && reward > 0.0
    }

    /// Hit below 17.
    fn heuristic_action(&self) -> usize {
        let GymObs::Triple([sum, ..]) = self.obs() else { unreachable!("Blackjack's observations are triples") };
        usize::from(sum < 17)
    }

    /// The cards are drawn: the rules must allow the outcome for some cards.
    fn transition_problems(obs: &GymObs, action: usize, next: &GymObs, reward: f64, terminated: bool) -> Vec<String> {
        match (obs, next) {
            (GymObs::Triple(before), GymObs::Triple(after))
                if Self::possible(*before, action, *after, reward, terminated) =>
            {
                Vec::new()
            }
            _ => vec!["the rules allow no such hand".into()],
        }
    }

    /// Sums 4–21 against each dealer card, with a usable ace from 12.
    fn tabulated_states() -> Option<Vec<GymObs>> {
        let hands = (4..=21).flat_map(|sum| (1..=10).flat_map(move |card| [0, 1].map(|ace| [sum, card, ace])));
        Some(hands.filter(|&[sum, _, ace]| ace == 0 || sum >= 12).map(GymObs::Triple).collect())
    }

    fn state_index(obs: &GymObs) -> usize {
        match obs {
            GymObs::Triple([sum, card, ace]) => {
                ((sum.clamp(&0, &31) * 11 + card.clamp(&0, &10)) * 2 + ace.clamp(&0, &1)) as usize
            }
            GymObs::Discrete(_) | GymObs::Floats(_) => 0,
        }
    }

    fn features(obs: &GymObs, out: &mut [f32]) {
        out.fill(0.0);
        if let GymObs::Triple([sum, card, ace]) = obs {
            out[0] = *sum as f32 / 31.0;
            out[1] = *card as f32 / 10.0;
            out[2] = *ace as f32;
        }
    }

    fn state_flags(state: usize) -> Vec<(&'static str, String)> {
        let [sum, card, ace] = index_obs(state);
        let usable = if ace == 1 { "yes" } else { "no" };
        vec![("sum", sum.to_string()), ("dealer", card.to_string()), ("usable ace", usable.to_owned())]
    }

    fn describe(values: &[f64]) -> String {
        format!(
            "player's sum {}, dealer shows {}, usable ace: {}",
            values[0],
            if values[1] == 1.0 { "an ace".to_owned() } else { values[1].to_string() },
            if values[2] == 1.0 { "yes" } else { "no" }
        )
    }

    fn draw(values: &[f64], scene: &mut Scene) {
        let (sum, dealer, ace) = (values[0], values[1], values[2]);
        let dealer = if dealer == 1.0 { "A".to_owned() } else { format!("{dealer}") };
        card(scene, (150.0, 110.0), format!("{sum}"), if ace == 1.0 { "your sum (usable ace)" } else { "your sum" });
        card(scene, (330.0, 110.0), dealer, "the dealer shows");
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    #[test]
    fn state_indices_and_flags_read_each_other() {
        let index = Blackjack::state_index(&GymObs::Triple([21, 10, 1]));
        assert_eq!(index, (21 * 11 + 10) * 2 + 1);
        assert_eq!(index_obs(index), [21, 10, 1]);
        assert_eq!(Blackjack::state_flags(index)[2], ("usable ace", "yes".to_owned()));
        assert_eq!(Blackjack::tabulated_states().unwrap().len(), 18 * 10 + 10 * 10);
    }

    #[test]
    fn deals_read_back_and_the_rules_judge_transitions() {
        for sum in 4..=21 {
            for ace in 0..=1 {
                if ace == 1 && sum < 12 {
                    continue;
                }
                let deal = Blackjack::from_obs(&GymObs::Triple([sum, 7, ace])).unwrap();
                assert_eq!(deal.obs(), GymObs::Triple([sum, 7, ace]), "{:?}", deal.player);
            }
        }
        // Soft 13 hits a 9: hard 13 (the ace now counts 1).
        assert!(Blackjack::possible([13, 5, 1], 1, [13, 5, 0], 0.0, false));
        assert!(!Blackjack::possible([13, 5, 1], 1, [13, 5, 1], 0.0, false));
        // Hard 15 hits a ten: bust at 25.
        assert!(Blackjack::possible([15, 5, 0], 1, [25, 5, 0], -1.0, true));
        assert!(!Blackjack::possible([15, 5, 0], 1, [25, 5, 0], 0.0, false));
        // Sticking on 21 cannot lose; on 16 it cannot tie.
        assert!(!Blackjack::possible([21, 5, 0], 0, [21, 5, 0], -1.0, true));
        assert!(Blackjack::possible([16, 5, 0], 0, [16, 5, 0], -1.0, true));
        assert!(!Blackjack::possible([16, 5, 0], 0, [16, 5, 0], 0.0, true));
        // Stepping the real thing gives possible transitions.
        let mut rng = RunRng::seed_from_u64(3);
        for _ in 0..500 {
            let mut game = Blackjack::reset(&mut rng);
            loop {
                let GymObs::Triple(before) = game.obs() else { unreachable!() };
                let action = rng.random_range(0..2);
                let step = game.step(action, &mut rng);
                let GymObs::Triple(after) = step.obs else { unreachable!() };
                assert!(
                    Blackjack::possible(before, action, after, step.reward, step.terminated),
                    "{before:?} {action} {after:?} {step:?}"
                );
                if step.terminated {
                    break;
                }
            }
        }
    }
}
