//! The syntax backend's binding rules: which occurrences of a name bind to
//! the target definition, by the language's scope rules, which provably do
//! not, and which it cannot decide.
//!
//! - **Definitions.** The target and the definitions of its name in the
//!   same scope and namespace (`refs.namespaces` in the language's TOML)
//!   are one binding: overloads, accessors, merged declarations, `cfg`
//!   alternatives. With them, its *family*: the members of the same name it
//!   overrides or implements and those that override or implement it, in
//!   the bases (`@base`, `@base.whole` in `references.scm`) and subtypes
//!   found among the files that mention the name. A Rust method in `impl
//!   Trait for T` whose trait is not among them implements an external
//!   trait: refused. A base that is not found leaves the family undecided.
//! - **Plain names** resolve lexically: in a file, the innermost visible
//!   definition of the name wins (another file's own definition is not the
//!   target); in another file a name is the target when an import naming
//!   its module binds it. A bare name never reaches a member.
//! - **Members.** `self.x` / `this.x` in type `C` binds to `C`'s own `x`,
//!   else to the nearest base that defines one, else (`C` a base of the
//!   target's type) to the subtypes' `x` when the family's are the only
//!   ones; a type that defines its own `x` outside the family is decided
//!   not bound. `T.x` / `T::x` is the member of `T`. A free function is
//!   never reached through a member access, except as `module.f`; a field
//!   access never reaches a method nor a call a field (`Access`). Any
//!   other receiver is of unknown type: undecided.
//!
//! Undecided sites are `probable` when every definition of the name found
//! is in the family, else `name_only`.

use super::{MEMBER_KINDS, Target, Tier, module_of};
use crate::error::{Error, ErrorCode};
use crate::symbols::ParsedFile;
use crate::symbols::bases::{Base, bases};
use crate::symbols::declared::{Local, locals};
use crate::symbols::occurrences::{Access, CALLABLE_KINDS, Occurrence, Receiver, Role};
use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::collections::BTreeSet;
use std::sync::Arc;

/// Kinds whose members are reached through them.
const HOLDER_KINDS: &[&str] = &[
    "class",
    "interface",
    "trait",
    "impl",
    "struct",
    "enum",
    "union",
    "type",
];
/// Kinds a `@base.whole` can name (what an `impl Trait for T` implements).
const WHOLE_KINDS: &[&str] = &["trait", "interface"];
/// Levels of bases and subtypes walked.
const MAX_DEPTH: usize = 8;

/// What an occurrence means for the target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// A reference of this tier; for `probable` and `name_only`, why it is
    /// undecided.
    Ref(Tier, Option<String>),
    /// Not a reference to the target, and why.
    Alone(String),
}

impl Verdict {
    pub fn tier(&self) -> Option<Tier> {
        match self {
            Verdict::Ref(t, _) => Some(*t),
            Verdict::Alone(_) => None,
        }
    }
}

/// A symbol that holds members: a class, interface, trait, `impl` block.
struct Holder {
    file: usize,
    sym: usize,
    /// Name path of the type its members belong to (`P` for `impl Tr for
    /// P`), and its last segment.
    owner: Vec<String>,
    bases: OnceCell<Vec<Base>>,
}

/// A type: a file and an owner name path.
type Owner = (usize, Vec<String>);

/// A definition: a file and a symbol index.
type Def = (usize, usize);

/// The binding rules over the files that mention the name.
pub(crate) struct Binder<'a> {
    name: &'a str,
    /// The root the files are under (whether an import names one of its
    /// folders).
    root: &'a std::path::Path,
    files: &'a [(String, Arc<ParsedFile>)],
    target: Option<&'a Target>,
    target_file: usize,
    /// Files whose language can use the target's (`refs.interop`).
    compatible: Vec<bool>,
    holders: Vec<Holder>,
    /// The target, its same-scope twins and its family.
    family: BTreeSet<Def>,
    /// Definitions whose place in the family is undecided, and why.
    undecided_defs: Vec<(Def, String)>,
    /// Why the target cannot be renamed at all (an external trait's method).
    pub refusal: Option<Error>,
    /// Every definition of the name found is in the family.
    only_family: bool,
    /// Each file's local bindings by name, read at first need.
    locals: Vec<OnceCell<BTreeMap<String, Vec<Local>>>>,
    /// Every definition of the name reachable by a bare name (not a
    /// member) is in the family.
    only_family_bare: bool,
    /// The root folder's import path ([`Binder::module_path`]).
    module: OnceCell<Option<String>>,
    /// [`Binder::names_root_folder`]'s answers by import path.
    root_folders: std::cell::RefCell<BTreeMap<String, bool>>,
}

impl<'a> Binder<'a> {
    pub fn new(
        name: &'a str,
        root: &'a std::path::Path,
        files: &'a [(String, Arc<ParsedFile>)],
        target: Option<&'a Target>,
    ) -> Binder<'a> {
        let target_file = target
            .and_then(|t| files.iter().position(|f| f.0 == t.display))
            .unwrap_or(0);
        let compatible: Vec<bool> = files
            .iter()
            .map(|(_, f)| target.is_none_or(|t| t.file.language.binds_with(&f.language)))
            .collect();
        let mut holders = Vec::new();
        for (fi, (_, file)) in files.iter().enumerate() {
            if !compatible[fi] {
                continue;
            }
            let mut first_child: Vec<Option<usize>> = vec![None; file.symbols.len()];
            for (i, s) in file.symbols.iter().enumerate() {
                if let Some(p) = s.parent_index
                    && first_child[p].is_none()
                {
                    first_child[p] = Some(i);
                }
            }
            for (i, s) in file.symbols.iter().enumerate() {
                if !HOLDER_KINDS.contains(&s.kind) {
                    continue;
                }
                let owner = match first_child[i] {
                    Some(c) => {
                        let segs = file.symbols[c].segments();
                        segs[..segs.len() - 1].to_vec()
                    }
                    None => s.segments().to_vec(),
                };
                holders.push(Holder {
                    file: fi,
                    sym: i,
                    owner,
                    bases: OnceCell::new(),
                });
            }
        }
        let mut b = Binder {
            name,
            root,
            files,
            target,
            target_file,
            compatible,
            holders,
            family: BTreeSet::new(),
            undecided_defs: Vec::new(),
            refusal: None,
            only_family: false,
            only_family_bare: false,
            locals: (0..files.len()).map(|_| OnceCell::new()).collect(),
            module: OnceCell::new(),
            root_folders: Default::default(),
        };
        if let Some(t) = target {
            let sym = t.symbol();
            if MEMBER_KINDS.contains(&sym.kind)
                && t.file.language.refs_rules().is_protocol_name(&sym.name)
            {
                b.refusal = Some(
                    Error::new(
                        ErrorCode::Conflict,
                        format!(
                            "`{}` is a name {} calls itself (a protocol method): no call site names it, so renaming it changes what the program does",
                            sym.name_path,
                            t.file.language.name()
                        ),
                    )
                    .with_suggestion("leave this name; rename the methods that call it instead")
                    .with_details(serde_json::json!({"name": sym.name, "line": sym.name_line})),
                );
            }
            if let Some(rule) = named_by_convention(t) {
                b.refusal = Some(
                    Error::new(
                        ErrorCode::Conflict,
                        format!(
                            "`{}` is named after another definition by a convention {}'s tools check (`{}` + the name it is about): its name cannot change alone",
                            sym.name_path,
                            t.file.language.name(),
                            rule.prefix
                        ),
                    )
                    .with_suggestion("rename the definition it is named after instead: its examples follow")
                    .with_details(serde_json::json!({"name": sym.name, "line": sym.name_line})),
                );
            }
            if !MEMBER_KINDS.contains(&sym.kind)
                && sym.parent_index.is_none()
                && (t.file.language.refs_rules().entry_points).contains(&sym.name)
            {
                b.refusal = Some(
                    Error::new(
                        ErrorCode::Conflict,
                        format!(
                            "`{}` is a function {} calls itself (an entry point): no call site names it, so renaming it changes what the program does",
                            sym.name_path,
                            t.file.language.name()
                        ),
                    )
                    .with_suggestion("leave this name; rename the functions it calls instead")
                    .with_details(serde_json::json!({"name": sym.name, "line": sym.name_line})),
                );
            }
            b.family = b.twins((target_file, t.index)).into_iter().collect();
            b.family.extend(b.split_twins((target_file, t.index)));
            b.build_family();
            b.structural_family();
            let all: Vec<Def> = (0..files.len())
                .filter(|&fi| b.compatible[fi])
                .flat_map(|fi| {
                    files[fi]
                        .1
                        .symbols_named(name)
                        .iter()
                        .map(move |&s| (fi, s))
                })
                .collect();
            b.only_family = all.iter().all(|d| b.family.contains(d));
            b.only_family_bare = all.iter().all(|d| {
                b.family.contains(d) || MEMBER_KINDS.contains(&b.file(d.0).symbols[d.1].kind)
            });
        }
        b
    }

    fn file(&self, fi: usize) -> &ParsedFile {
        &self.files[fi].1
    }

    fn target_is_member(&self) -> bool {
        self.target
            .is_some_and(|t| MEMBER_KINDS.contains(&t.symbol().kind))
    }

    /// `d` and the definitions of the same name in the same scope and
    /// namespace: one binding.
    fn twins(&self, d: Def) -> Vec<Def> {
        let file = self.file(d.0);
        let s = &file.symbols[d.1];
        file.symbols_named(&s.name)
            .iter()
            .copied()
            .filter(|&o| {
                let other = &file.symbols[o];
                // One scope is one name path too: Go declares every method
                // at the top level, named by its receiver
                // (`StructC.InterfaceA`), beside a function or a type of
                // the same last name.
                other.parent_index == s.parent_index
                    && other.segments() == s.segments()
                    && file.language.same_namespace(s.kind, other.kind)
            })
            .map(|o| (d.0, o))
            .collect()
    }

    /// Where a declaration and its definition are apart (`refs.
    /// split_definitions`: a C prototype in a header, a C++ method declared
    /// in its class and defined outside it): the definitions of the same
    /// name path and namespace, in any file, when `d` or they have no body.
    /// One binding: renamed together, never one without the other.
    fn split_twins(&self, d: Def) -> Vec<Def> {
        let file = self.file(d.0);
        let s = &file.symbols[d.1];
        if !file.language.refs_rules().split_definitions {
            return Vec::new();
        }
        let bodied = crate::symbols::has_body(file, s);
        (0..self.files.len())
            .filter(|&fi| self.compatible[fi])
            .flat_map(|fi| {
                let other_file = self.file(fi);
                other_file
                    .symbols_named(&s.name)
                    .iter()
                    .copied()
                    .filter(move |&o| {
                        let other = &other_file.symbols[o];
                        (fi, o) != d
                            && other.segments() == s.segments()
                            && file.language.same_namespace(s.kind, other.kind)
                            && !(bodied && crate::symbols::has_body(other_file, other))
                    })
                    .map(move |o| (fi, o))
            })
            .collect()
    }

    fn bases(&self, h: usize) -> &[Base] {
        let holder = &self.holders[h];
        holder
            .bases
            .get_or_init(|| bases(self.file(holder.file), holder.sym).unwrap_or_default())
    }

    fn holder_of(&self, d: Def) -> Option<usize> {
        let p = self.file(d.0).symbols[d.1].parent_index?;
        self.holders
            .iter()
            .position(|h| h.file == d.0 && h.sym == p)
    }

    /// The name's definitions directly in holder `h`.
    fn defs_in(&self, h: usize) -> Vec<Def> {
        let holder = &self.holders[h];
        let file = self.file(holder.file);
        file.symbols_named(self.name)
            .iter()
            .copied()
            .filter(|&s| file.symbols[s].parent_index == Some(holder.sym))
            .map(|s| (holder.file, s))
            .collect()
    }

    /// The holders of type `o`.
    fn holders_of(&self, o: &Owner) -> Vec<usize> {
        (0..self.holders.len())
            .filter(|&h| self.holders[h].file == o.0 && self.holders[h].owner == o.1)
            .collect()
    }

    fn owner(&self, h: usize) -> Owner {
        (self.holders[h].file, self.holders[h].owner.clone())
    }

    /// The one type named by base `b` of holder `x` (the one in `x`'s file
    /// first; never `x`'s own type; for `@base.whole`, a trait or
    /// interface).
    fn resolve_base(&self, b: &Base, x: usize) -> Resolved {
        let own = self.owner(x);
        self.resolve_where(&b.name, own.0, |h| {
            (h.file, &h.owner) != (own.0, &own.1)
                && (!b.whole || WHOLE_KINDS.contains(&self.file(h.file).symbols[h.sym].kind))
        })
    }

    /// The one type named `name` (the one in file `near` first).
    fn resolve(&self, name: &str, near: usize) -> Resolved {
        self.resolve_where(name, near, |_| true)
    }

    fn resolve_where(&self, name: &str, near: usize, keep: impl Fn(&Holder) -> bool) -> Resolved {
        let mut found: Vec<Owner> = self
            .holders
            .iter()
            .filter(|h| h.owner.last().is_some_and(|l| l == name) && keep(h))
            .map(|h| (h.file, h.owner.clone()))
            .collect();
        found.sort();
        found.dedup();
        if let Some(o) = found.iter().find(|o| o.0 == near) {
            return Resolved::One(o.clone());
        }
        match found.len() {
            0 => Resolved::Unknown,
            1 => Resolved::One(found.remove(0)),
            _ => Resolved::Many,
        }
    }

    fn is_empty_base(&self, fi: usize, b: &Base) -> bool {
        self.file(fi)
            .language
            .refs_rules()
            .empty_bases
            .contains(&b.name)
    }

    fn display(&self, o: &Owner) -> String {
        o.1.join(self.file(o.0).language.separator())
    }

    /// The family: from each definition in it, up through bases to the
    /// nearest that define the name, and down through subtypes likewise.
    /// `refs.structural_interfaces` (Go): a type implements every interface
    /// whose methods it has, without naming it, so a method of the target's
    /// name declared in an interface may be the one the target implements:
    /// each such declaration is an undecided definition (the rename is
    /// refused unless the caller decides).
    fn structural_family(&mut self) {
        let Some(t) = self.target else { return };
        if !MEMBER_KINDS.contains(&t.symbol().kind)
            || !t.file.language.refs_rules().structural_interfaces
        {
            return;
        }
        let files = self.files;
        for fi in (0..files.len()).filter(|&fi| self.compatible[fi]) {
            let file = &files[fi].1;
            for &i in file.symbols_named(self.name) {
                let s = &file.symbols[i];
                let in_interface = s
                    .parent_index
                    .is_some_and(|p| file.symbols[p].kind == "interface");
                if in_interface
                    && !self.family.contains(&(fi, i))
                    && !self.undecided_defs.iter().any(|u| u.0 == (fi, i))
                {
                    let why = format!(
                        "`{}` declares a method `{}`: the target's type may implement it (interfaces are structural)",
                        file.symbols[s.parent_index.unwrap_or(i)].name_path,
                        self.name
                    );
                    self.undecided_defs.push(((fi, i), why));
                }
            }
        }
    }

    fn build_family(&mut self) {
        let Some(t) = self.target else { return };
        if !MEMBER_KINDS.contains(&t.symbol().kind) {
            return;
        }
        let mut queue: Vec<usize> = self
            .holder_of((self.target_file, t.index))
            .into_iter()
            .collect();
        let mut seen: BTreeSet<usize> = queue.iter().copied().collect();
        let mut rounds = 0;
        while let Some(h) = queue.pop() {
            rounds += 1;
            if rounds > 10_000 {
                break;
            }
            // Up: bases, through those that do not define the name.
            let mut up = vec![(h, 0)];
            while let Some((x, depth)) = up.pop() {
                if depth > MAX_DEPTH {
                    continue;
                }
                let fi = self.holders[x].file;
                for b in self.bases(x).to_vec() {
                    match self.resolve_base(&b, x) {
                        Resolved::One(o) => {
                            for y in self.holders_of(&o) {
                                if !seen.insert(y) {
                                    continue;
                                }
                                if self.join(y) {
                                    queue.push(y);
                                } else {
                                    up.push((y, depth + 1));
                                }
                            }
                        }
                        Resolved::Unknown
                            if b.whole
                                && x == h
                                && self.defs_in(h).iter().any(|d| self.family.contains(d)) =>
                        {
                            let d = self.defs_in(h)[0];
                            let e = Error::new(
                                ErrorCode::Conflict,
                                format!(
                                    "`{}` implements `{}` of `{}`, which is not among the files of the root that mention it: an external trait's method cannot be renamed",
                                    self.file(d.0).symbols[d.1].name_path,
                                    self.name,
                                    b.name
                                ),
                            )
                            .with_suggestion(
                                "rename the trait's method where it is defined, or leave this name",
                            )
                            .with_details(serde_json::json!({"trait": b.name, "line": b.line}));
                            self.refusal.get_or_insert(e);
                        }
                        _ if b.whole || self.is_empty_base(fi, &b) => {}
                        r => {
                            let why = format!(
                                "`{}` derives from `{}`, {}: `{}` may override its member",
                                self.display(&self.owner(x)),
                                b.name,
                                if r == Resolved::Many {
                                    "which names several types"
                                } else {
                                    "not among the files that mention the name"
                                },
                                self.name
                            );
                            for d in self.defs_in(h) {
                                if !self.undecided_defs.iter().any(|u| u.0 == d) {
                                    self.undecided_defs.push((d, why.clone()));
                                }
                            }
                        }
                    }
                }
            }
            // Down: subtypes, through those that do not define the name.
            let mut down = vec![(h, 0)];
            while let Some((x, depth)) = down.pop() {
                if depth > MAX_DEPTH {
                    continue;
                }
                for y in self.subtypes(x) {
                    if !seen.insert(y) {
                        continue;
                    }
                    if self.join(y) {
                        queue.push(y);
                    } else {
                        down.push((y, depth + 1));
                    }
                }
            }
        }
    }

    /// Add holder `y`'s definitions of the name to the family (with their
    /// twins); false when it has none.
    fn join(&mut self, y: usize) -> bool {
        let defs = self.defs_in(y);
        for d in &defs {
            for t in self.twins(*d) {
                self.family.insert(t);
            }
        }
        !defs.is_empty()
    }

    /// Holders whose bases name holder `x`'s type (and resolve to it).
    fn subtypes(&self, x: usize) -> Vec<usize> {
        let o = self.owner(x);
        let Some(last) = o.1.last() else {
            return Vec::new();
        };
        (0..self.holders.len())
            .filter(|&y| y != x && self.owner(y) != o)
            .filter(|&y| {
                self.bases(y).iter().any(|b| {
                    &b.name == last
                        && self.resolve(&b.name, self.holders[y].file) == Resolved::One(o.clone())
                })
            })
            .collect()
    }

    /// Does the family hold a definition in a holder of `o`?
    fn family_in(&self, o: &Owner) -> (bool, bool) {
        let mut fam = false;
        let mut other = false;
        let defs = self.holders_of(o).into_iter().flat_map(|h| self.defs_in(h));
        for d in defs.chain(self.detached_defs(o)) {
            if self.family.contains(&d) {
                fam = true;
            } else {
                other = true;
            }
        }
        (fam, other)
    }

    /// The name's definitions that are members of `o` declared apart from
    /// it, for a language whose package is its folder: Go declares a
    /// method at the top level, named by its receiver (`Buf.Grow`), in any
    /// file of the type's folder.
    fn detached_defs(&self, o: &Owner) -> Vec<Def> {
        if !self.file(o.0).language.refs_rules().folder_packages {
            return Vec::new();
        }
        let here = folder(&self.files[o.0].0);
        (0..self.files.len())
            .filter(|&fi| self.compatible[fi] && folder(&self.files[fi].0) == here)
            .flat_map(|fi| {
                let file = self.file(fi);
                file.symbols_named(self.name)
                    .iter()
                    .copied()
                    .filter(move |&s| {
                        let segs = file.symbols[s].segments();
                        file.symbols[s].parent_index.is_none()
                            && segs.len() == o.1.len() + 1
                            && segs[..o.1.len()] == o.1[..]
                    })
                    .map(move |s| (fi, s))
            })
            .collect()
    }

    fn undecided(&self, why: String) -> Verdict {
        let tier = if self.only_family {
            Tier::Probable
        } else {
            Tier::NameOnly
        };
        Verdict::Ref(tier, Some(why))
    }

    /// What occurrence `o` of file `fi` means for the target.
    pub fn judge(&self, fi: usize, o: &Occurrence) -> Verdict {
        let Some(t) = self.target else {
            return match &o.role {
                Role::Definition(_) => Verdict::Ref(Tier::Definition, None),
                r if r.is_use() => Verdict::Ref(Tier::NameOnly, None),
                Role::Maybe => Verdict::Ref(Tier::NameOnly, Some(o.role.why_not().into())),
                r => Verdict::Alone(r.why_not().into()),
            };
        };
        if !self.compatible[fi] {
            return Verdict::Alone(format!(
                "in a {} file, which cannot use a {} definition",
                self.file(fi).language.name(),
                t.file.language.name()
            ));
        }
        let member = self.target_is_member();
        let kind = t.symbol().kind;
        match &o.role {
            Role::Definition(i) => {
                if self.family.contains(&(fi, *i)) {
                    Verdict::Ref(Tier::Definition, None)
                } else if let Some((_, why)) =
                    self.undecided_defs.iter().find(|(d, _)| *d == (fi, *i))
                {
                    self.undecided(why.clone())
                } else {
                    Verdict::Alone(o.role.why_not().into())
                }
            }
            Role::Reference
                if member
                    && self.file(fi).language.refs_rules().implicit_self
                    && self.enclosing_owner(fi, o.byte).is_some() =>
            {
                self.through_self(fi, o, false)
            }
            Role::Reference if member => self.bare_member(fi, o),
            Role::Reference => self.lexical(fi, o),
            Role::Member(_, access) if !access.reaches(kind) => Verdict::Alone(format!(
                "a {} access: `{}` is a {kind}",
                if *access == Access::Call {
                    "call"
                } else {
                    "field"
                },
                self.name
            )),
            Role::Member(Receiver::SelfLike | Receiver::Super, _) if !member => {
                Verdict::Alone(format!("a member of `self`: `{}` is a {kind}", self.name))
            }
            Role::Member(Receiver::Named(path), _)
                if !member && self.file(fi).language.refs_rules().folder_packages =>
            {
                self.package_member(fi, path, o)
            }
            Role::Member(_, Access::Call | Access::Field) if !member => Verdict::Alone(format!(
                "a member access: `{}` is a {kind}, and members and {kind}s are apart",
                self.name
            )),
            Role::Member(Receiver::SelfLike, _) => self.through_self(fi, o, false),
            Role::Member(Receiver::Super, _) => self.through_self(fi, o, true),
            Role::Member(Receiver::Named(path), _) => self.named(fi, path, o),
            Role::Member(Receiver::Other, _) => {
                self.undecided("a member of an expression of unknown type".into())
            }
            Role::Ignored if CALLABLE_KINDS.contains(&kind) => {
                Verdict::Alone(format!("{}: it never names a {kind}", o.role.why_not()))
            }
            Role::Maybe => self.undecided(o.role.why_not().into()),
            Role::Unclassified | Role::Ignored if member => self.undecided(format!(
                "{} (a key or a field named in a literal may be the member)",
                o.role.why_not()
            )),
            r => Verdict::Alone(r.why_not().into()),
        }
    }

    /// The target's folder (`folder_packages`): root-relative, `None` at
    /// the root.
    fn target_folder(&self) -> Option<&str> {
        let t = self.target?;
        t.display.rsplit_once('/').map(|(d, _)| d)
    }

    /// A bare name in another file of the target's folder, for a language
    /// whose package is its folder: the package's top-level name, unless
    /// another file of the folder defines it too (a build-tag twin:
    /// undecided).
    fn same_package(&self, fi: usize) -> Option<Verdict> {
        let file = self.file(fi);
        if !file.language.refs_rules().folder_packages {
            return None;
        }
        let here = self.files[fi].0.rsplit_once('/').map(|(f, _)| f);
        if here != self.target_folder() {
            return None;
        }
        Some(if self.package_twin() {
            self.undecided(format!(
                "another file of this package also defines `{}`",
                self.name
            ))
        } else {
            Verdict::Ref(Tier::Proven, None)
        })
    }

    /// Whether another file of the target's folder defines its name at the
    /// top level, outside its family (Go's build-tag twins:
    /// `pointer_purego.go` and `pointer_unsafe.go` each define
    /// `PointerOf`): a use through the package may be either's.
    fn package_twin(&self) -> bool {
        let folder = self.target_folder();
        self.files.iter().enumerate().any(|(fj, (d, f))| {
            d.rsplit_once('/').map(|(f, _)| f) == folder
                && f.symbols_named(self.name).iter().any(|&i| {
                    let s = &f.symbols[i];
                    s.parent_index.is_none()
                        && s.segments().len() == 1
                        && !self.family.contains(&(fj, i))
                })
        })
    }

    /// `pkg.Name` for a target that is not a member, in a language whose
    /// package is its folder (`folder_packages`): see there.
    fn package_member(&self, fi: usize, receiver: &str, o: &Occurrence) -> Verdict {
        // A package is one name: `test.cs.Fdump` is a value's member.
        if receiver.contains(['.', ':']) {
            return Verdict::Alone(format!(
                "a member of `{receiver}`, a value: a package's `{}` is reached as `pkg.{}`",
                self.name, self.name
            ));
        }
        // The definition's package as imports name it: its folder (an
        // import path ending in it), or, at the root, the module's path.
        let (dir, exact) = match (self.target_folder(), self.module_path()) {
            (Some(d), _) => (d, false),
            (None, Some(m)) => (m, true),
            (None, None) => {
                return self.undecided(format!(
                    "`{receiver}` may be a package; the definition's is the root folder"
                ));
            }
        };
        let last = dir.rsplit('/').next().unwrap_or(dir);
        let file = self.file(fi);
        let Some(specs) = self.import_specs(fi) else {
            return self.undecided(format!("`{receiver}` may be a package"));
        };
        let specs: Vec<(&str, &str, bool)> = (specs.iter())
            .map(|(p, b, a)| (p.as_str(), b.as_str(), *a))
            .collect();
        let tail = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
        let ours = |p: &str| p == dir || (!exact && p.ends_with(&format!("/{dir}")));
        if let Some(&(path, _, _)) = specs.iter().find(|s| s.1 == receiver) {
            return if ours(path) && self.package_twin() {
                self.undecided(format!(
                    "another file of `{dir}` also defines `{}` (a build-tag twin?)",
                    self.name
                ))
            } else if ours(path) {
                Verdict::Ref(Tier::Proven, None)
            } else if tail(path) == last {
                self.undecided(format!(
                    "`{receiver}` is the package `{path}`, which may be this folder"
                ))
            } else {
                Verdict::Alone(format!("a member of the package `{path}`"))
            };
        }
        // A local binding of the callable around it is a value (`g :=
        // greeter{}`), whatever the imports.
        let value = || {
            let locals = self.locals[fi].get_or_init(|| locals(file).unwrap_or_default());
            let offset = file.source.body_offset();
            let at = o.byte - offset;
            let around = file
                .symbols
                .iter()
                .filter(|s| CALLABLE_KINDS.contains(&s.kind))
                .map(|s| s.full_span())
                .map(|sp| (sp.start_byte - offset, sp.end_byte - offset))
                .filter(|&(a, b)| a <= at && at < b)
                .min_by_key(|&(a, b)| b - a);
            around.is_some_and(|(a, b)| {
                locals
                    .get(receiver)
                    .is_some_and(|ls| ls.iter().any(|l| a <= l.byte && l.byte < at.min(b)))
            })
        };
        let alone = || {
            Verdict::Alone(format!(
                "a member of `{receiver}`, which no import binds: a value, whose members are not `{}`",
                self.name
            ))
        };
        if value() {
            return alone();
        }
        // No import binds the receiver by its path's last part: a package
        // named unlike its folder may still be ours.
        if receiver == last
            || specs
                .iter()
                .any(|s| !s.2 && (ours(s.0) || tail(s.0) == last))
        {
            return self.undecided(format!(
                "`{receiver}` may be this folder's package under its own name"
            ));
        }
        alone()
    }

    /// A Go file's imports: each one's path (its quoted text), the name
    /// it binds (its alias, else the path's last part, which is the
    /// package's name only by convention) and whether an alias bound it.
    fn import_specs(&self, fi: usize) -> Option<Vec<(String, String, bool)>> {
        let file = self.file(fi);
        let body = file.source.body();
        let imports = file.imports().ok()?;
        Some(
            imports
                .iter()
                .filter_map(|s| {
                    let text = &body[s.start_byte..s.end_byte];
                    let (_, rest) = text.split_once('"')?;
                    let (path, _) = rest.split_once('"')?;
                    let tail = path.rsplit('/').next().unwrap_or(path);
                    Some(match s.names.iter().next() {
                        Some(alias) => (path.to_string(), alias.clone(), true),
                        None => (path.to_string(), tail.to_string(), false),
                    })
                })
                .collect(),
        )
    }

    /// The import path of the root folder (`refs.root_module`: Go's
    /// `module` line of `go.mod`), read once.
    fn module_path(&self) -> Option<&str> {
        self.module
            .get_or_init(|| {
                let t = self.target?;
                let rule = t.file.language.refs_rules().root_module.as_ref()?;
                let bytes = crate::disk::read_bytes(&self.root.join(&rule.file), 64 * 1024).ok()?;
                let text = String::from_utf8_lossy(&bytes);
                text.lines().find_map(|l| {
                    let rest = l.trim().strip_prefix(rule.keyword.as_str())?;
                    let path = rest.split("//").next()?.trim().trim_matches('"');
                    (rest.starts_with(char::is_whitespace) && !path.is_empty())
                        .then(|| path.to_string())
                })
            })
            .as_deref()
    }

    /// Does an import path name a folder of the root (`net/http` in Go's
    /// own tree, a module path ending in one: `example.com/m/a`)?
    fn names_root_folder(&self, path: &str) -> bool {
        // Asked once per import path, not per occurrence (each asks the disk).
        if let Some(&known) = self.root_folders.borrow().get(path) {
            return known;
        }
        let known = self.names_root_folder_on_disk(path);
        self.root_folders
            .borrow_mut()
            .insert(path.to_string(), known);
        known
    }

    fn names_root_folder_on_disk(&self, path: &str) -> bool {
        if let Some(m) = self.module_path()
            && (path == m || path.starts_with(&format!("{m}/")))
        {
            return true;
        }
        let parts: Vec<&str> = path.split('/').collect();
        if parts
            .iter()
            .any(|p| p.is_empty() || *p == "." || *p == "..")
        {
            return true;
        }
        (0..parts.len()).any(|i| self.root.join(parts[i..].join("/")).is_dir())
    }

    /// `var.x` where `var` is declared with another package's type
    /// (`p cmp.Path`), in a language whose package is its folder: the
    /// member of the one type of that name in a folder the import names;
    /// left alone when the import names no folder of the root (a type of
    /// the standard library or a dependency has no member of the root).
    fn qualified(&self, fi: usize, var: &str, q: &str, ty: &str) -> Verdict {
        let Some(specs) = self.import_specs(fi) else {
            return self.undecided(format!("`{var}` is a `{q}.{ty}`, `{q}` not read"));
        };
        let Some((path, _, _)) = specs.iter().find(|s| s.1 == q) else {
            return self.undecided(format!(
                "`{var}` is a `{q}.{ty}`, and no import binds `{q}`"
            ));
        };
        let module = self.module_path();
        let names = |f: Option<&str>| match (f, module) {
            (Some(f), _) => *path == f || path.ends_with(&format!("/{f}")),
            (None, Some(m)) => path == m,
            (None, None) => false,
        };
        match self.resolve_where(ty, fi, |h| names(folder(&self.files[h.file].0))) {
            Resolved::One(c) => self.through_owner(&c, false),
            Resolved::Many => self.undecided(format!(
                "`{var}` is a `{q}.{ty}`, which names several types"
            )),
            Resolved::Unknown if !self.names_root_folder(path) => Verdict::Alone(format!(
                "a member of `{var}`, a `{q}.{ty}` of the package `{path}`, outside the root"
            )),
            Resolved::Unknown => {
                // The type's own file does not mention the name; its
                // methods are in files of the folder that do.
                let mut folders: Vec<(Option<&str>, usize)> = (0..self.files.len())
                    .filter(|&fj| names(folder(&self.files[fj].0)))
                    .map(|fj| (folder(&self.files[fj].0), fj))
                    .collect();
                folders.sort();
                folders.dedup_by_key(|f| f.0);
                match folders.as_slice() {
                    [(_, fj)] => self.package_type(*fj, var, ty),
                    _ => self.undecided(format!(
                        "`{var}` is a `{q}.{ty}`, not a type among the files that mention `{}`",
                        self.name
                    )),
                }
            }
        }
    }

    /// `var.x` where `var` is a `ty` of the package of file `fi`'s folder,
    /// whose declaration is not among the files that mention the name: a
    /// package has one type of a name, and every method of `ty` named
    /// like the target is in a file that mentions it, so the members of
    /// `ty` declared in the folder decide.
    fn package_type(&self, fi: usize, var: &str, ty: &str) -> Verdict {
        match self.through_owner(&(fi, vec![ty.to_string()]), false) {
            Verdict::Ref(Tier::Proven, w) => Verdict::Ref(Tier::Proven, w),
            Verdict::Alone(w) => Verdict::Alone(w),
            _ => self.undecided(format!(
                "`{var}` is a `{ty}`, which declares no `{}` in its folder",
                self.name
            )),
        }
    }

    /// A plain name, for a target that is not a member.
    fn lexical(&self, fi: usize, o: &Occurrence) -> Verdict {
        let file = self.file(fi);
        let visible: Vec<usize> = file
            .symbols_named(self.name)
            .iter()
            .copied()
            .filter(|&s| {
                let sym = &file.symbols[s];
                !MEMBER_KINDS.contains(&sym.kind)
                    && sym.parent_index.is_none_or(|p| {
                        let sp = file.symbols[p].full_span();
                        sp.start_byte <= o.byte && o.byte < sp.end_byte
                    })
            })
            .collect();
        let depth = visible.iter().map(|&s| file.symbols[s].depth()).max();
        let innermost: Vec<usize> = visible
            .iter()
            .copied()
            .filter(|&s| Some(file.symbols[s].depth()) == depth)
            .collect();
        let ours = innermost
            .iter()
            .filter(|&&s| self.family.contains(&(fi, s)))
            .count();
        if ours > 0 && ours == innermost.len() {
            return Verdict::Ref(Tier::Proven, None);
        }
        if ours > 0 {
            return self.undecided(format!("`{}` names several definitions here", self.name));
        }
        if let Some(&other) = innermost.first() {
            return Verdict::Alone(format!(
                "a use of another `{}` (line {})",
                self.name, file.symbols[other].name_line
            ));
        }
        if fi == self.target_file {
            return Verdict::Alone("outside the scope of the definition".into());
        }
        if let Some(v) = self.same_package(fi) {
            return v;
        }
        let t = self.target.expect("a target");
        if super::imports_module(file, o, t) {
            return Verdict::Ref(Tier::Proven, None);
        }
        // A glob import of the target's module (`use super::digit::*`,
        // `from shapes import *`), and no other definition of the name.
        let module = module_of(&t.display);
        let body = file.source.body();
        let glob = file.imports().is_ok_and(|imports| {
            imports.iter().any(|s| {
                s.names.is_empty()
                    && !crate::symbols::occurrences::word_offsets(
                        &body[s.start_byte..s.end_byte],
                        module,
                    )
                    .is_empty()
            })
        });
        if glob && self.only_family_bare {
            return Verdict::Ref(Tier::Proven, None);
        }
        let imported = file
            .imports()
            .is_ok_and(|imports| imports.iter().any(|s| s.names.contains(self.name)));
        self.undecided(if imported {
            format!(
                "imported from a module other than `{}`",
                module_of(&t.display)
            )
        } else {
            "no definition or import here ties the name to the definition".into()
        })
    }

    /// A bare name, for a member target: never the member, but in a class
    /// body (Python) or for an enum member brought in by a glob import, it
    /// may be.
    fn bare_member(&self, fi: usize, o: &Occurrence) -> Verdict {
        let file = self.file(fi);
        let in_holder_body = self.holders.iter().any(|h| {
            h.file == fi && {
                let sp = file.symbols[h.sym].full_span();
                sp.start_byte <= o.byte && o.byte < sp.end_byte
            }
        }) && !file.symbols.iter().any(|s| {
            let sp = s.full_span();
            CALLABLE_KINDS.contains(&s.kind) && sp.start_byte <= o.byte && o.byte < sp.end_byte
        });
        let kind = self.target.map_or("", |t| t.symbol().kind);
        // Where `this` is implicit (Java, C++), a bare name in a method,
        // also one defined outside its class, may be a member.
        let implicit = file.language.refs_rules().implicit_members;
        if in_holder_body || implicit || kind == "enum_member" {
            return self.undecided("a bare name where a member may be in scope".into());
        }
        Verdict::Alone("a bare name: it never reaches a member".into())
    }

    /// The type whose member holds the occurrence (`self`'s type).
    fn enclosing_owner(&self, fi: usize, byte: usize) -> Option<Owner> {
        let file = self.file(fi);
        let m = file
            .symbols
            .iter()
            .filter(|s| {
                let sp = s.full_span();
                MEMBER_KINDS.contains(&s.kind) && sp.start_byte <= byte && byte < sp.end_byte
            })
            .min_by_key(|s| s.full_span().end_byte - s.full_span().start_byte)?;
        let segs = m.segments();
        Some((fi, segs[..segs.len() - 1].to_vec()))
    }

    fn through_self(&self, fi: usize, o: &Occurrence, bases_only: bool) -> Verdict {
        match self.enclosing_owner(fi, o.byte) {
            Some(c) => self.through_owner(&c, bases_only),
            None => self.undecided("`self` outside a member".into()),
        }
    }

    /// `path.x`: the member of the type `path` names, or of a value of
    /// unknown type.
    fn named(&self, fi: usize, path: &str, o: &Occurrence) -> Verdict {
        let last = path
            .rsplit(['.', ':'])
            .find(|s| !s.is_empty())
            .unwrap_or(path);
        let t = self.target.expect("a target");
        if !self.target_is_member() {
            let parent = t
                .symbol()
                .parent_index
                .map(|p| t.file.symbols[p].name.as_str());
            if last == module_of(&t.display) || parent == Some(last) {
                return Verdict::Ref(Tier::Proven, None);
            }
            if matches!(self.resolve(last, fi), Resolved::One(_)) {
                return Verdict::Alone(format!(
                    "a member of `{last}`: `{}` is a {}",
                    self.name,
                    t.symbol().kind
                ));
            }
            return self.undecided(format!("`{path}` may be a module that re-exports it"));
        }
        if last == path
            && let Some(v) = self.declared(fi, path, o)
        {
            return v;
        }
        // Not a local, and an import binds it: a package, whose members
        // are never a type's methods or fields.
        if last == path
            && self.file(fi).language.refs_rules().folder_packages
            && let Some(specs) = self.import_specs(fi)
            && let Some((p, _, _)) = specs.iter().find(|s| s.1 == path)
        {
            return Verdict::Alone(format!(
                "a member of `{path}`, the package `{p}`: a package has no {}s",
                t.symbol().kind
            ));
        }
        match self.resolve(last, fi) {
            Resolved::One(c) => self.through_owner(&c, false),
            Resolved::Many => self.undecided(format!("`{last}` names several types")),
            Resolved::Unknown => self.undecided(format!("`{path}` is a value of unknown type")),
        }
    }

    /// `var.x` where `var` is a local binding: the member of the type it
    /// is declared with or constructed from (`@local.type`), when every
    /// binding of `var` in the innermost scope that binds it (a callable,
    /// else the file) names the same type; `None` when it is not a local.
    fn declared(&self, fi: usize, var: &str, o: &Occurrence) -> Option<Verdict> {
        let locals = self.locals[fi].get_or_init(|| locals(self.file(fi)).unwrap_or_default());
        let all = locals.get(var)?;
        let file = self.file(fi);
        let offset = file.source.body_offset();
        let callables = || {
            file.symbols
                .iter()
                .filter(|s| CALLABLE_KINDS.contains(&s.kind))
                .map(|s| s.full_span())
                .map(move |sp| (sp.start_byte - offset, sp.end_byte - offset))
        };
        let mut scopes: Vec<(usize, usize)> = callables()
            .filter(|&(a, b)| a <= o.byte - offset && o.byte - offset < b)
            .collect();
        scopes.sort_by_key(|&(a, b)| b - a);
        let mut levels: Vec<Vec<&Local>> = scopes
            .iter()
            .map(|&(a, b)| all.iter().filter(|l| a <= l.byte && l.byte < b).collect())
            .collect();
        levels.push(
            all.iter()
                .filter(|l| !callables().any(|(a, b)| a <= l.byte && l.byte < b))
                .collect(),
        );
        let here = levels.into_iter().find(|l| !l.is_empty())?;
        let types: BTreeSet<(Option<&str>, Option<&str>)> = (here.iter())
            .map(|l| (l.ty.as_deref(), l.qualifier.as_deref()))
            .collect();
        if types.len() > 1 {
            return Some(self.undecided(format!(
                "`{var}` is bound more than once here, not always to one named type"
            )));
        }
        let (ty, q) = *types.first()?;
        let ty = ty?;
        let packages = file.language.refs_rules().folder_packages;
        if let (Some(q), true) = (q, packages) {
            return Some(self.qualified(fi, var, q, ty));
        }
        // A package's own type is named bare (another's is `pkg.T`): only
        // a type of this file's folder can be it.
        let resolved = if packages {
            let here = folder(&self.files[fi].0);
            self.resolve_where(ty, fi, |h| folder(&self.files[h.file].0) == here)
        } else {
            self.resolve(ty, fi)
        };
        Some(match resolved {
            Resolved::One(c) => self.through_owner(&c, false),
            Resolved::Many => {
                self.undecided(format!("`{var}` is a `{ty}`, which names several types"))
            }
            Resolved::Unknown if packages => self.package_type(fi, var, ty),
            Resolved::Unknown => self.undecided(format!(
                "`{var}` is a `{ty}`, not a type among the files that mention `{}`",
                self.name
            )),
        })
    }

    /// A member of type `c` (its bases only for `super`).
    fn through_owner(&self, c: &Owner, bases_only: bool) -> Verdict {
        let (fam, other) = self.family_in(c);
        if !bases_only {
            match (fam, other) {
                (true, false) => return Verdict::Ref(Tier::Proven, None),
                (true, true) => {
                    return self.undecided(format!(
                        "`{}` has two definitions of `{}`",
                        self.display(c),
                        self.name
                    ));
                }
                (false, true) => {
                    return Verdict::Alone(format!(
                        "a member of `{}`, which defines its own `{}`",
                        self.display(c),
                        self.name
                    ));
                }
                (false, false) => {}
            }
        }
        // Up: the nearest base that defines the name.
        let mut unknown: Option<String> = None;
        let mut level: Vec<Owner> = vec![c.clone()];
        let mut seen: BTreeSet<Owner> = level.iter().cloned().collect();
        for _ in 0..MAX_DEPTH {
            let mut next = Vec::new();
            for o in &level {
                for h in self.holders_of(o) {
                    for b in self.bases(h) {
                        match self.resolve_base(b, h) {
                            Resolved::One(a) => {
                                if seen.insert(a.clone()) {
                                    next.push(a);
                                }
                            }
                            _ if self.is_empty_base(o.0, b) => {}
                            _ => {
                                unknown.get_or_insert_with(|| b.name.clone());
                            }
                        }
                    }
                }
            }
            for a in &next {
                match self.family_in(a) {
                    (true, false) => return Verdict::Ref(Tier::Proven, None),
                    (false, true) => {
                        return Verdict::Alone(format!(
                            "inherits `{}` from `{}`, another definition",
                            self.name,
                            self.display(a)
                        ));
                    }
                    (true, true) => {
                        return self.undecided(format!(
                            "`{}` has two definitions of `{}`",
                            self.display(a),
                            self.name
                        ));
                    }
                    (false, false) => {}
                }
            }
            if next.is_empty() {
                break;
            }
            level = next;
        }
        if let Some(b) = unknown {
            return self.undecided(format!(
                "`{}` derives from `{b}`, not among the files that mention `{}`",
                self.display(c),
                self.name
            ));
        }
        // Down: `c` is a base of the family's types and declares nothing.
        let mut below: Vec<usize> = self.holders_of(c);
        let mut seen_h: BTreeSet<usize> = below.iter().copied().collect();
        let (mut fam_below, mut other_below) = (false, false);
        for _ in 0..MAX_DEPTH {
            let mut next = Vec::new();
            for &x in &below {
                for y in self.subtypes(x) {
                    if seen_h.insert(y) {
                        for d in self.defs_in(y) {
                            if self.family.contains(&d) {
                                fam_below = true;
                            } else {
                                other_below = true;
                            }
                        }
                        next.push(y);
                    }
                }
            }
            if next.is_empty() {
                break;
            }
            below = next;
        }
        match (fam_below, other_below) {
            (true, false) => Verdict::Ref(Tier::Proven, None),
            (true, true) => self.undecided(format!(
                "subtypes of `{}` define `{}` apart",
                self.display(c),
                self.name
            )),
            _ => self.undecided(format!(
                "`{}` neither defines nor inherits `{}`",
                self.display(c),
                self.name
            )),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Resolved {
    One(Owner),
    Many,
    Unknown,
}

/// A root-relative path's folder (`None` at the root).
fn folder(display: &str) -> Option<&str> {
    display.rsplit_once('/').map(|(d, _)| d)
}

/// The `refs.named_after` rule whose names the target's own name is one
/// of (Go's `ExampleNew` in a `_test.go` file: `go vet` checks that it
/// names `New`), if any.
fn named_by_convention(t: &Target) -> Option<&crate::lang::NamedAfter> {
    let sym = t.symbol();
    let file_name = t.display.rsplit('/').next().unwrap_or(&t.display);
    (t.file.language.refs_rules().named_after).iter().find(|r| {
        sym.parent_index.is_none()
            && sym.name.starts_with(&r.prefix)
            && r.kinds.iter().any(|k| k == sym.kind)
            && globset::Glob::new(&r.files).is_ok_and(|g| g.compile_matcher().is_match(file_name))
    })
}
