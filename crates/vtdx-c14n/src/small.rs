//! A stack that keeps its first `N` entries inline and spills to the heap
//! beyond: the namespace and element stacks of a walk are almost always tiny,
//! and canonicalizing a 2 KB message should not cost a handful of allocations.

pub(crate) struct Stack<T: Copy + Default, const N: usize> {
    inline: [T; N],
    len: usize,
    /// Holds all entries once they outgrew `inline` (then `heap.len() == len`).
    heap: Vec<T>,
}

impl<T: Copy + Default, const N: usize> Stack<T, N> {
    pub fn new() -> Self {
        Stack { inline: [T::default(); N], len: 0, heap: Vec::new() }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline(always)]
    pub fn push(&mut self, v: T) {
        if self.heap.is_empty() {
            if self.len < N {
                self.inline[self.len] = v;
                self.len += 1;
                return;
            }
            self.spill();
        }
        // on the heap: stays there until truncated to nothing (a deep walk keeps its
        // outer entries), so this is the common path of a stack that outgrew `inline`
        self.heap.push(v);
        self.len += 1;
    }

    /// Moves the inline entries to the heap ([`Stack::push`] beyond `N` entries).
    #[cold]
    #[inline(never)]
    fn spill(&mut self) {
        self.heap.reserve(N * 2);
        self.heap.extend_from_slice(&self.inline[..self.len]);
    }

    #[inline]
    pub fn truncate(&mut self, n: usize) {
        if n < self.len {
            self.len = n;
            if !self.heap.is_empty() {
                self.heap.truncate(n);
            }
        }
    }

    #[inline]
    pub fn clear(&mut self) {
        self.truncate(0);
    }

    #[inline]
    pub fn pop(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let v = self.as_slice()[self.len - 1];
        self.truncate(self.len - 1);
        Some(v)
    }

    #[inline]
    pub fn as_slice(&self) -> &[T] {
        if self.heap.is_empty() {
            &self.inline[..self.len]
        } else {
            &self.heap
        }
    }

    #[inline]
    pub fn last(&self) -> Option<&T> {
        self.as_slice().last()
    }

    pub fn sort_by(&mut self, cmp: impl FnMut(&T, &T) -> std::cmp::Ordering) {
        if self.heap.is_empty() {
            self.inline[..self.len].sort_unstable_by(cmp);
        } else {
            self.heap.sort_unstable_by(cmp);
        }
    }

    pub fn retain(&mut self, f: impl Fn(&T) -> bool) {
        let mut kept = Stack::<T, N>::new();
        for &v in self.as_slice() {
            if f(&v) {
                kept.push(v);
            }
        }
        *self = kept;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spills_and_comes_back() {
        let mut s: Stack<u32, 2> = Stack::new();
        for i in 0..5 {
            s.push(i);
        }
        assert_eq!(s.as_slice(), &[0, 1, 2, 3, 4]);
        s.truncate(3);
        assert_eq!(s.as_slice(), &[0, 1, 2]);
        assert_eq!(s.pop(), Some(2));
        s.clear();
        assert!(s.is_empty());
        s.push(7);
        assert_eq!(s.as_slice(), &[7]);
        s.retain(|&x| x != 7);
        assert_eq!(s.len(), 0);
    }
}
