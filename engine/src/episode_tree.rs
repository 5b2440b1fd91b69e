//! The episode tree: the prefix tree of the action sequences of a run's episodes. Each node is the
//! sequence of actions on its path from the root; it counts the episodes that began with that
//! sequence, their mean return and success rate, and keeps the ids of the latest of them.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

/// How many episode ids a node keeps (the most recent ones).
pub const EPISODES_KEPT_PER_NODE: usize = 256;
/// How many actions of an episode the tree follows: the seeds' episodes are shorter, while a
/// Gymnasium episode of hundreds of random steps would add a node per step that no view can show.
pub const MAX_DEPTH: usize = 40;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TreeNode {
    /// The action on the edge from the parent (`None` at the root).
    pub action: Option<u8>,
    pub parent: Option<u32>,
    pub children: Vec<u32>,
    pub visits: u32,
    pub return_sum: f64,
    pub successes: u32,
    /// The latest episodes through this node, oldest first.
    pub episodes: VecDeque<u32>,
}

impl TreeNode {
    pub fn mean_return(&self) -> f64 {
        self.return_sum / f64::from(self.visits.max(1))
    }

    pub fn success_rate(&self) -> f64 {
        f64::from(self.successes) / f64::from(self.visits.max(1))
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EpisodeTree {
    nodes: Vec<TreeNode>,
}

impl Default for EpisodeTree {
    fn default() -> Self {
        Self { nodes: vec![TreeNode::default()] }
    }
}

impl EpisodeTree {
    pub const ROOT: u32 = 0;

    pub fn nodes(&self) -> &[TreeNode] {
        &self.nodes
    }

    pub fn node(&self, id: u32) -> &TreeNode {
        &self.nodes[id as usize]
    }

    pub fn child(&self, id: u32, action: u8) -> Option<u32> {
        self.node(id).children.iter().copied().find(|&c| self.node(c).action == Some(action))
    }

    /// The node reached by following `actions` from the root.
    pub fn find(&self, actions: &[u8]) -> Option<u32> {
        actions.iter().try_fold(Self::ROOT, |id, &a| self.child(id, a))
    }

    /// The actions from the root to `id`.
    pub fn path(&self, mut id: u32) -> Vec<u8> {
        let mut actions = Vec::new();
        while let (Some(action), Some(parent)) = (self.node(id).action, self.node(id).parent) {
            actions.push(action);
            id = parent;
        }
        actions.reverse();
        actions
    }

    /// Adds an episode: every node on its path (its first [`MAX_DEPTH`] actions) gains a visit.
    pub fn add(&mut self, episode: u32, actions: &[u8], episode_return: f64, success: bool) {
        let mut id = Self::ROOT;
        self.visit(id, episode, episode_return, success);
        for &action in actions.iter().take(MAX_DEPTH) {
            id = match self.child(id, action) {
                Some(child) => child,
                None => {
                    let child = self.nodes.len() as u32;
                    self.nodes.push(TreeNode { action: Some(action), parent: Some(id), ..TreeNode::default() });
                    self.nodes[id as usize].children.push(child);
                    child
                }
            };
            self.visit(id, episode, episode_return, success);
        }
    }

    fn visit(&mut self, id: u32, episode: u32, episode_return: f64, success: bool) {
        let node = &mut self.nodes[id as usize];
        node.visits += 1;
        node.return_sum += episode_return;
        node.successes += u32::from(success);
        if node.episodes.len() == EPISODES_KEPT_PER_NODE {
            node.episodes.pop_front();
        }
        node.episodes.push_back(episode);
    }

    /// The run's dominant action sequence: from the root, follow the most visited child for as long
    /// as it holds a majority of its parent's episodes.
    pub fn dominant_path(&self) -> Vec<u8> {
        let mut id = Self::ROOT;
        let mut actions = Vec::new();
        loop {
            let node = self.node(id);
            let Some(&next) = node.children.iter().max_by_key(|&&c| (self.node(c).visits, std::cmp::Reverse(c))) else {
                return actions;
            };
            if 2 * self.node(next).visits <= node.visits {
                return actions;
            }
            actions.push(self.node(next).action.expect("only the root has no action"));
            id = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_episode_is_followed_to_the_depth_limit() {
        let mut tree = EpisodeTree::default();
        tree.add(0, &[0; 500], -500.0, false);
        assert_eq!(tree.nodes().len(), MAX_DEPTH + 1);
        assert_eq!(tree.path(MAX_DEPTH as u32).len(), MAX_DEPTH);
    }

    #[test]
    fn shared_prefixes_share_nodes() {
        let mut tree = EpisodeTree::default();
        tree.add(0, &[1, 2], 9.0, true);
        tree.add(1, &[1, 2], 7.0, true);
        tree.add(2, &[1, 3, 2], -5.0, false);
        assert_eq!(tree.nodes().len(), 5);
        assert_eq!(tree.node(EpisodeTree::ROOT).visits, 3);
        let coder = tree.find(&[1]).unwrap();
        assert_eq!(tree.node(coder).visits, 3);
        assert!((tree.node(coder).success_rate() - 2.0 / 3.0).abs() < 1e-12);
        let tester = tree.find(&[1, 2]).unwrap();
        assert_eq!(tree.node(tester).mean_return(), 8.0);
        assert_eq!(tree.node(tester).episodes, [0, 1]);
        assert_eq!(tree.path(tree.find(&[1, 3, 2]).unwrap()), vec![1, 3, 2]);
        assert_eq!(tree.find(&[0]), None);
        assert_eq!(tree.dominant_path(), vec![1, 2]);
        tree.add(3, &[0], 0.0, false);
        tree.add(4, &[0], 0.0, false);
        tree.add(5, &[0], 0.0, false);
        assert_eq!(tree.dominant_path(), Vec::<u8>::new(), "no opening holds a majority");
    }

    #[test]
    fn nodes_keep_only_the_latest_episode_ids() {
        let mut tree = EpisodeTree::default();
        for episode in 0..300 {
            tree.add(episode, &[0], 1.0, true);
        }
        let node = tree.node(tree.find(&[0]).unwrap());
        assert_eq!(node.visits, 300);
        assert_eq!(node.episodes.len(), EPISODES_KEPT_PER_NODE);
        assert_eq!(node.episodes.front(), Some(&44));
    }
}
