//! A small seeded generator (SplitMix64): the same `--seed` gives the same mutants on every machine, with no
//! dependency whose output could change between versions.

/// SplitMix64 (Steele, Lea and Flood, 2014): one 64-bit state, a fixed sequence for each seed.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The generator of mutant number `n` of a run with `seed`: each mutant has its own stream, so that mutant `n`
    /// is the same whichever thread builds it and however many mutants came before.
    pub fn for_mutant(seed: u64, n: u64) -> Rng {
        let mut mixer = Rng(seed ^ n.wrapping_mul(0xA076_1D64_78BD_642F));
        Rng(mixer.next_u64())
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % (n as u64).max(1)) as usize
    }

    /// True with probability `1 / n`.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    /// One element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_the_same_numbers_and_mutants_have_streams_of_their_own() {
        let a: Vec<u64> = (0..4).map(|_| Rng::new(7).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        let mut one = Rng::for_mutant(7, 1);
        let mut two = Rng::for_mutant(7, 2);
        assert_ne!(one.next_u64(), two.next_u64());
        assert_eq!(Rng::for_mutant(7, 1).next_u64(), Rng::for_mutant(7, 1).next_u64());
    }
}
