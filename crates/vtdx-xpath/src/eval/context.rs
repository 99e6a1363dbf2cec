//! [`Context`]: per-document evaluation state (variables and lazily built
//! indexes).

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;

use vtdx_core::dtd::AttType;
use vtdx_core::{Document, Node, Sym};

use crate::ast::VarName;
use crate::value::Value;

/// Per-document evaluation state: variable bindings and lazily built indexes
/// (per-name element lists for `//name`, the ID table for `id()`, name
/// lookups). Build one per document and evaluate any number of compiled
/// expressions with it; [`crate::XPath::evaluate`] builds a throwaway one.
///
/// A `Context` is `Send` but not `Sync`: use one per thread.
pub struct Context<'d> {
    pub(super) doc: &'d Document<'d>,
    pub(super) vars: HashMap<VarName, Value<'d>>,
    elem_lists: RefCell<HashMap<Sym, ListState<'d>>>,
    ids: OnceCell<HashMap<String, Node<'d>>>,
    pub(super) parallel: bool,
}

enum ListState<'d> {
    /// Asked for once: scanned, not stored.
    Seen,
    Built(Arc<[Node<'d>]>),
}

impl<'d> Context<'d> {
    /// A context for `doc` with no variables bound.
    pub fn new(doc: &'d Document<'d>) -> Context<'d> {
        Context::with_vars(doc, HashMap::new())
    }

    pub(super) fn with_vars(doc: &'d Document<'d>, vars: HashMap<VarName, Value<'d>>) -> Context<'d> {
        Context { doc, vars, elem_lists: RefCell::new(HashMap::new()), ids: OnceCell::new(), parallel: false }
    }

    /// Lets evaluation use a second thread for the large parts of its work:
    /// a predicate over many nodes, a child or `text()` step from many
    /// elements. Off by default. The result is the same either way (the
    /// second thread takes the later half of the nodes and the halves are
    /// joined in order; an error is the one the sequential order meets first);
    /// it cuts the instructions on the longest thread for node-sets of
    /// thousands of nodes, but on the 2-vCPU test host it gave no measurable
    /// gain in time and about a quarter more CPU time (docs/xpath.md), so
    /// nothing in this project turns it on by default.
    pub fn set_parallel(&mut self, on: bool) -> &mut Self {
        self.parallel = on;
        self
    }

    /// The document.
    pub fn document(&self) -> &'d Document<'d> {
        self.doc
    }

    /// Binds `$name` (a name without prefix) to `value`.
    pub fn set_variable(&mut self, name: &str, value: impl Into<Value<'d>>) -> &mut Self {
        self.set_variable_ns("", name, value)
    }

    /// Binds the variable with expanded name (`uri`, `local`), referenced as
    /// `$p:local` with `p` bound to `uri` at compile time.
    pub fn set_variable_ns(&mut self, uri: &str, local: &str, value: impl Into<Value<'d>>) -> &mut Self {
        self.vars.insert(VarName { uri: uri.into(), local: local.into() }, value.into());
        self
    }

    /// The elements named `sym` in document order, if a list is worth having:
    /// the first request for a name returns `None` (the caller scans the tape,
    /// which costs the same as building the list); later requests build the
    /// list once and share it.
    pub(super) fn elements_named(&self, sym: Sym) -> Option<Arc<[Node<'d>]>> {
        let mut m = self.elem_lists.borrow_mut();
        match m.get(&sym) {
            None => {
                m.insert(sym, ListState::Seen);
                None
            }
            Some(ListState::Built(l)) => Some(l.clone()),
            Some(ListState::Seen) => {
                let l: Arc<[Node<'d>]> = self.doc.root().descendant_elements().filter(|e| e.sym() == Some(sym)).collect();
                m.insert(sym, ListState::Built(l.clone()));
                Some(l)
            }
        }
    }

    /// ID value → element, from attributes declared with type ID in the DTD
    /// (first element in document order wins).
    pub(super) fn ids(&self) -> &HashMap<String, Node<'d>> {
        self.ids.get_or_init(|| {
            let mut m = HashMap::new();
            let Some(dtd) = self.doc.dtd() else { return m };
            let decls: Vec<(&str, &str)> =
                dtd.attributes.iter().filter(|a| a.ty == AttType::Id).map(|a| (a.element.as_str(), a.name.as_str())).collect();
            if decls.is_empty() {
                return m;
            }
            for e in self.doc.root().descendant_elements() {
                let en = e.name();
                if !decls.iter().any(|(de, _)| *de == en) {
                    continue;
                }
                for a in e.attributes() {
                    let an = a.name();
                    if decls.iter().any(|(de, da)| *de == en && *da == an) {
                        m.entry(a.value().into_owned()).or_insert(e);
                    }
                }
            }
            m
        })
    }
}
