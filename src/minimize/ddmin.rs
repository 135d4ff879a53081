//! Delta debugging: the `ddmin` algorithm of Zeller and Hildebrandt,
//! "Simplifying and Isolating Failure-Inducing Input" (IEEE TSE 28(2),
//! 2002), over a list of items (here: the units of a body).
//!
//! It is generic: it knows nothing of streams. The test says whether a
//! subset still shows the failure; `None` means the budget is spent (or
//! the user pressed Ctrl-C), and the best subset found so far is returned.

/// What a test run said about a subset.
pub type Verdict = Option<bool>;

/// The smallest subset of `items` (in their order) that `test` accepts, as
/// far as `ddmin` finds: 1-minimal (removing any one item makes `test`
/// fail) unless the budget ran out. `items` itself must pass `test`; it is
/// not tested again.
///
/// Each round splits the current set into `n` parts and tries each part
/// alone, then each complement; the first that passes becomes the current
/// set. When none does, the granularity doubles, until parts are single
/// items.
pub fn ddmin<T: Clone>(items: Vec<T>, test: &mut impl FnMut(&[T]) -> Verdict) -> Vec<T> {
    let mut cur = items;
    let mut n = 2usize;
    while cur.len() >= 2 {
        let parts = split(&cur, n);
        let mut reduced = false;
        // Subsets first (a big step when the failure needs one part),
        // but only when there are few parts: with many, each part alone
        // rarely passes and the complements are the useful tests.
        if n <= 8 {
            for p in &parts {
                match test(p) {
                    None => return cur,
                    Some(true) => {
                        cur = p.clone();
                        n = 2;
                        reduced = true;
                        break;
                    }
                    Some(false) => {}
                }
            }
        }
        if !reduced {
            for i in 0..parts.len() {
                let complement: Vec<T> = parts
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .flat_map(|(_, p)| p.iter().cloned())
                    .collect();
                match test(&complement) {
                    None => return cur,
                    Some(true) => {
                        cur = complement;
                        n = (n - 1).max(2);
                        reduced = true;
                        break;
                    }
                    Some(false) => {}
                }
            }
        }
        if !reduced {
            if n >= cur.len() {
                break;
            }
            n = (n * 2).min(cur.len());
        }
    }
    cur
}

/// `items` in `n` contiguous parts of nearly equal size.
fn split<T: Clone>(items: &[T], n: usize) -> Vec<Vec<T>> {
    let n = n.clamp(1, items.len().max(1));
    let mut parts = Vec::with_capacity(n);
    let mut start = 0;
    for i in 0..n {
        let end = start + (items.len() - start) / (n - i);
        parts.push(items[start..end].to_vec());
        start = end;
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_two_items_that_matter() {
        let items: Vec<u32> = (0..100).collect();
        let mut runs = 0;
        let out = ddmin(items, &mut |s: &[u32]| {
            runs += 1;
            Some(s.contains(&17) && s.contains(&83))
        });
        assert_eq!(out, vec![17, 83]);
        assert!(runs < 100, "{runs} runs");
    }

    #[test]
    fn stops_when_the_budget_is_spent_with_the_best_so_far() {
        let items: Vec<u32> = (0..64).collect();
        let mut left = 3;
        let out = ddmin(items, &mut |s: &[u32]| {
            if left == 0 {
                return None;
            }
            left -= 1;
            Some(s.contains(&5))
        });
        assert!(out.contains(&5) && out.len() < 64, "{out:?}");
    }

    #[test]
    fn result_is_one_minimal() {
        // Needs every multiple of 7 below 50.
        let items: Vec<u32> = (0..50).collect();
        let need: Vec<u32> = (0..50).filter(|i| i % 7 == 0).collect();
        let out = ddmin(items, &mut |s: &[u32]| {
            Some(need.iter().all(|x| s.contains(x)))
        });
        assert_eq!(out, need);
    }
}
