//! Recently compiled expressions (XPath, ElementPath), shared by all threads.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// Compiled expressions by key: the expression, plus `\0` and the namespace
/// bindings when there are any (a NUL cannot occur in a valid expression). It is
/// emptied when full, so a program that builds expressions on the fly cannot grow
/// it without bound.
pub(crate) struct CompileCache<T> {
    map: Mutex<Option<HashMap<String, Arc<T>>>>,
    max: usize,
}

impl<T> CompileCache<T> {
    /// An empty cache for up to `max` expressions.
    pub(crate) const fn new(max: usize) -> Self {
        CompileCache { map: Mutex::new(None), max }
    }

    /// The compiled form of `expr` with the namespace bindings `nskey` (`""`: none),
    /// from the cache or from `compile`, whose result is then kept.
    pub(crate) fn get_or_compile<E>(&self, expr: &str, nskey: &str, compile: impl FnOnce() -> Result<T, E>) -> Result<Arc<T>, E> {
        let owned;
        let key: &str = if nskey.is_empty() {
            expr
        } else {
            owned = format!("{expr}\0{nskey}");
            &owned
        };
        if let Some(x) = self.lock().as_ref().and_then(|m| m.get(key)) {
            return Ok(x.clone());
        }
        let x = Arc::new(compile()?);
        let mut guard = self.lock();
        let m = guard.get_or_insert_with(HashMap::new);
        if m.len() >= self.max {
            m.clear();
        }
        m.insert(key.to_string(), x.clone());
        Ok(x)
    }

    fn lock(&self) -> MutexGuard<'_, Option<HashMap<String, Arc<T>>>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }
}
