//! Rescaling new code's indentation to the unit of its place: code written
//! with steps of 2 that lands in a file indented by 4 gets steps of 4 at
//! every depth, and the other way round.
//!
//! Only lines of the code's blocks and statements ([`Role::Step`]) count in
//! steps. A line continued inside a bracket whose first item follows it on
//! its line (`def f(a,` / `      b):`), and a line inside a multi-line
//! comment or docstring, keeps its position relative to the line above it
//! ([`Role::Follow`]): its column is alignment or content, not depth. The
//! roles are read from the code's own parse ([`super::indent::roles`]), so
//! no language is named here.

/// How a line of code moves when its indentation is rescaled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A line of the code's blocks and statements: its depth is counted in
    /// steps of the code's unit, each becoming a step of the place's unit.
    Step,
    /// A step line that continues the line it is nested in outside
    /// brackets, neither beginning nor belonging to a block or a bracket
    /// (Java's `throws` clause, an operand of an `||` chain written down
    /// the page, a `.method()` of a chain, the statements under a C
    /// `case`): moved as a step line, but when the file's own unit is read
    /// ([`file_step_counts`]) it nests what follows without telling a unit.
    /// Its depth is its writer's choice of how far a continuation goes (the
    /// JDK's `EmojiData` lines its `||` operands up at 15 and 16 columns,
    /// alternately, which read as 165 steps of 1; `JavaSecuritySignatureAccess`
    /// has `throws` two steps in under each of three members one step in).
    Continued,
    /// A line that begins with a comment: placed like a step line, but it
    /// opens no depth, and tells the code's unit only when no step line
    /// does (a body that is only a comment).
    Comment,
    /// A line that begins by closing a bracket opened on an earlier line
    /// (`}`, `)`): placed like a comment line. It sits at its opener's
    /// depth, so a column it sits off by is a slip, not a step (the JDK's
    /// `BigInteger.squareToLen` closes one column right of its header).
    Close,
    /// Continued inside a visually indented bracket, or inside a multi-line
    /// comment or docstring: moves by as much as the line above it.
    Follow,
    /// Continued inside such a bracket under its first item or right of
    /// it: a following line, unless the same column is meant as steps in
    /// from the line above (the JDK's `return (IOException)` /
    /// `x.getClass()` one step in, which sent in steps of 8 lands under
    /// `IOException`; `Collectors.toSet`'s lambda under the first argument,
    /// its whole column sent in steps of 8, lands right of it), so the fit
    /// tries it both ways and the layout judges.
    Under,
    /// Continued inside such a bracket but left of its first item (a
    /// hanging indent): as far deeper than the line above it as it was, in
    /// steps. Like a following line, it does not tell the code's unit.
    Hang,
    /// A line whose whole column is steps from the first line's, each
    /// becoming a step of the new unit, as a converter that rescales every
    /// line's indentation on its own writes it. The fit reads every line
    /// of the code's layout this way once ([`Role::Under`] lines too): the
    /// JDK's `Math.copySign` has its `|` and `&` operands lined up 35 and
    /// 36 columns in, sent in steps of 8 at 67 and 72, and counted from the
    /// line above, the 3 left over at 67 and the 5 more at 72 would make a
    /// step.
    Column,
    /// Never moved (inside a multi-line string literal, or blank).
    Fixed,
}

impl Role {
    /// Is the line counted in steps of the code's unit ([`Role::Step`] or
    /// [`Role::Continued`])?
    pub fn steps(self) -> bool {
        matches!(self, Role::Step | Role::Continued)
    }
}

/// The code's indentation unit, read from `depths` (each line's depth
/// relative to the first line's, `None` for a line that is not moved) as
/// the most frequent step by which a [`Role::Step`] line goes deeper than
/// the step line it is nested in (ties go to the smaller step, as the
/// file's own unit is read: [`crate::source::indent_of_lines`]). `None`
/// when no step line goes deeper.
pub fn steps_unit(depths: &[Option<usize>], roles: &[Role]) -> Option<usize> {
    steps_units(depths, roles).first().copied()
}

/// Every step [`steps_unit`] could take as the unit, smallest first: the
/// most frequent steps, several when they tie (Java's
/// `Collections.unmodifiableList` goes 4, 3 and 8 deeper once each), so
/// that a caller can tell a unit the code shows from one a tie chose.
pub fn steps_units(depths: &[Option<usize>], roles: &[Role]) -> Vec<usize> {
    let (counts, wide) = step_counts(depths, roles);
    let most = counts.iter().skip(1).copied().max().unwrap_or(0);
    if most == 0 {
        // With only wide steps, the widest unit: what is left over is kept
        // as it is by the rescale (a Java constructor's body one column
        // past a step of 4, sent in steps of 8, is 9 deep: 8 and 1, not
        // three steps of 3).
        return if wide { vec![MAX_UNIT] } else { Vec::new() };
    }
    (1..=MAX_UNIT).filter(|&w| counts[w] == most).collect()
}

/// Does a [`Role::Step`] line go deeper than the step line it is nested
/// in (what [`steps_units`] counts before it falls back to comment lines)?
pub fn steps_deeper(depths: &[Option<usize>], roles: &[Role]) -> bool {
    let (counts, wide) = counts_of(depths, roles, false, false);
    wide || counts.iter().any(|&n| n > 0)
}

/// Every width a block's line goes deeper than the line it is counted
/// from most often (`anchors`: [`super::indent::block_anchors`]), smallest
/// first: the unit of the code's blocks alone, with no line of a bracket
/// or a continuation voting. Empty when no such line goes deeper.
pub fn block_units(depths: &[Option<usize>], anchors: &[Option<usize>]) -> Vec<usize> {
    let mut counts = [0usize; MAX_UNIT + 1];
    for (i, from) in anchors.iter().enumerate() {
        let step = from
            .filter(|&a| a < i)
            .and_then(|a| depths.get(i).copied()??.checked_sub(depths[a]?));
        if let Some(n) = step.and_then(|w| counts.get_mut(w).filter(|_| w > 0)) {
            *n += 1;
        }
    }
    let most = counts.iter().copied().max().unwrap_or(0);
    (1..=MAX_UNIT)
        .filter(|&w| most > 0 && counts[w] == most)
        .collect()
}

/// The narrowest step the code takes: when it is not the most frequent one
/// ([`steps_unit`]), a rescale may need it (yaml-cpp's `Utf8Adjust` has a
/// body one step of 2 in and two continuations two steps in, so in steps
/// of 4 its most frequent step is 8, and its body, 4 deep, less than one).
pub fn narrowest_step(depths: &[Option<usize>], roles: &[Role]) -> Option<usize> {
    let (counts, _) = step_counts(depths, roles);
    (1..=MAX_UNIT).find(|&w| counts[w] > 0)
}

/// How many times a [`Role::Step`] line goes each width deeper than the
/// step line it is nested in, and whether one goes deeper than any unit.
/// Code with no step line deeper than its first counts its comment lines
/// instead: a body that is only a comment (the JDK's constructors whose
/// body is `// blank`) shows its unit nowhere else, and sent in steps of 2
/// it would keep its comment 2 deep in a file of 4.
fn step_counts(depths: &[Option<usize>], roles: &[Role]) -> ([usize; MAX_UNIT + 1], bool) {
    let found = counts_of(depths, roles, false, false);
    if found.0.iter().any(|&n| n > 0) || found.1 {
        return found;
    }
    counts_of(depths, roles, true, false)
}

/// How many times a [`Role::Step`] line of a whole file goes each width
/// deeper than the line it is nested in, for the file's own unit
/// ([`super::indent::file_style`]). Unlike [`step_counts`], a line
/// continued in a bracket ([`Role::Hang`], [`Role::Under`]) nests what
/// follows: the JDK's `FormatData` has its arrays' strings one step in from
/// a `new String[] {` that hangs one step in from its `{ "MonthNames",`, and
/// counted from that line instead, every string went two steps.
pub fn file_step_counts(depths: &[Option<usize>], roles: &[Role]) -> [usize; MAX_UNIT + 1] {
    counts_of(depths, roles, false, true).0
}

/// [`step_counts`], with comment lines voting as step lines or not, and
/// continued lines nesting what follows or not.
fn counts_of(
    depths: &[Option<usize>],
    roles: &[Role],
    comments: bool,
    continued: bool,
) -> ([usize; MAX_UNIT + 1], bool) {
    let mut counts = [0usize; MAX_UNIT + 1];
    // Steps wider than any unit: several steps at once (racc's generated
    // Ruby puts a method's body 4 and 6 columns in, so the same code in
    // steps of 8 goes 16 and 24 deep with no narrower step between).
    let mut wide = false;
    let mut stack: Vec<usize> = vec![0];
    for (depth, role) in depths.iter().zip(roles).skip(1) {
        let nests = continued && matches!(role, Role::Hang | Role::Under | Role::Continued);
        let counted = match role {
            Role::Step | Role::Continued | Role::Close => true,
            Role::Comment => comments,
            _ => nests,
        };
        let Some(d) = depth.filter(|_| counted) else {
            continue;
        };
        while stack.last().is_some_and(|&top| top > d) {
            stack.pop();
        }
        if *role == Role::Close {
            continue;
        }
        let top = stack.last().copied().unwrap_or(0);
        if nests {
            if d > top {
                stack.push(d);
            }
        } else if d > top {
            match counts.get_mut(d - top) {
                Some(n) => *n += 1,
                None => wide = true,
            }
            stack.push(d);
        }
    }
    (counts, wide)
}

/// The widest step read as one unit.
const MAX_UNIT: usize = 8;

/// `depths` rescaled from steps of `from` to steps of `to` (see the module
/// text). A step line at a depth some enclosing step line had takes that
/// line's new depth; a deeper one adds its steps to the enclosing line's
/// new depth (a remainder that is not a whole step is kept as it is); a
/// following line moves by as much as the nearest moved line above it.
pub fn rescale(
    depths: &[Option<usize>],
    roles: &[Role],
    from: usize,
    to: usize,
) -> Vec<Option<usize>> {
    let scale = |x: usize| (x / from) * to + x % from;
    // (old depth, new depth) of the step lines enclosing the current one.
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    let mut delta: isize = 0;
    // (old depth, new depth) of the nearest moved line above.
    let mut above = (0, 0);
    let mut out = Vec::with_capacity(depths.len());
    for (i, (depth, role)) in depths.iter().zip(roles).enumerate() {
        let Some(d) = *depth else {
            out.push(None);
            continue;
        };
        let new = if i == 0 {
            0
        } else {
            match role {
                Role::Step | Role::Continued | Role::Comment | Role::Close => {
                    while stack.len() > 1 && stack.last().is_some_and(|&(old, _)| old > d) {
                        stack.pop();
                    }
                    let (old, new_top) = stack.last().copied().unwrap_or((0, 0));
                    let new = new_top + scale(d - old);
                    if role.steps() && d > old {
                        stack.push((d, new));
                    }
                    new
                }
                Role::Column => scale(d),
                Role::Follow | Role::Under => (d as isize + delta).max(0) as usize,
                Role::Hang if d > above.0 => above.1 + scale(d - above.0),
                Role::Hang => (d as isize + delta).max(0) as usize,
                Role::Fixed => {
                    out.push(None);
                    continue;
                }
            }
        };
        delta = new as isize - d as isize;
        above = (d, new);
        out.push(Some(new));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use Role::*;

    #[test]
    fn a_blocks_unit_counts_each_line_from_its_blocks_line() {
        let d = |v: &[usize]| v.iter().map(|&x| Some(x)).collect::<Vec<_>>();
        // The JDK's `SocketOptionRegistry`: statements one step of 4 in
        // from the header (line 0), a call's arguments far right of it and
        // 2 apart (no block line), a member at 5 among 4.
        let anchors = [None, Some(0), None, None, None, Some(0), Some(0)];
        assert_eq!(block_units(&d(&[0, 4, 34, 44, 46, 4, 4]), &anchors), [4]);
        assert_eq!(
            block_units(&d(&[0, 4, 5, 4]), &[None, Some(0), Some(0), Some(0)]),
            [4]
        );
        // A tie, smallest first; an unmoved line, or one no deeper, votes
        // nothing.
        assert_eq!(
            block_units(&d(&[0, 4, 3]), &[None, Some(0), Some(0)]),
            [3, 4]
        );
        let unmoved = [Some(0), None, Some(4), Some(4)];
        assert_eq!(
            block_units(&unmoved, &[None, Some(0), Some(0), Some(2)]),
            [4]
        );
        assert!(block_units(&d(&[0, 0]), &[None, Some(0)]).is_empty());
    }

    #[test]
    fn the_unit_is_the_most_frequent_step() {
        let d = |v: &[usize]| v.iter().map(|&x| Some(x)).collect::<Vec<_>>();
        assert_eq!(steps_unit(&d(&[0, 2, 4, 2, 0]), &[Step; 5]), Some(2));
        // A hanging indent of two steps and a body of one.
        assert_eq!(steps_unit(&d(&[0, 8, 4]), &[Step; 3]), Some(4));
        // Following lines do not vote.
        assert_eq!(steps_unit(&d(&[0, 6, 6]), &[Step, Follow, Follow]), None);
        assert_eq!(steps_unit(&d(&[0]), &[Step]), None);
        // Only steps wider than any unit: the widest unit.
        assert_eq!(steps_unit(&d(&[0, 24, 24, 16, 0]), &[Step; 5]), Some(8));
        assert_eq!(steps_unit(&d(&[0, 9, 0]), &[Step; 3]), Some(8));
        // Steps of 4, 3 and 8 once each: a tie, each of them the unit.
        assert_eq!(steps_units(&d(&[0, 4, 7, 4, 12]), &[Step; 5]), [3, 4, 8]);
        // A closing line does not vote (the JDK's `squareToLen` closes one
        // column right of its header).
        assert_eq!(
            steps_units(&d(&[0, 5, 9, 1]), &[Step, Step, Step, Close]),
            [4, 5]
        );
        assert_eq!(steps_unit(&d(&[0, 1, 2]), &[Step; 3]), Some(1));
        // Comment lines vote only when no step line goes deeper: a body
        // that is only a comment.
        assert_eq!(steps_unit(&d(&[0, 2, 0]), &[Step, Comment, Close]), Some(2));
        assert_eq!(
            steps_unit(&d(&[0, 2, 4, 0]), &[Step, Comment, Step, Close]),
            Some(4)
        );
    }

    #[test]
    fn steps_scale_and_following_lines_keep_their_place() {
        let d = |v: &[usize]| v.iter().map(|&x| Some(x)).collect::<Vec<_>>();
        // def f(a,          0
        //       b):         6 (aligned: follows line 0, which did not move)
        //   x = g(1,        2 -> 4
        //         2)        8 -> 10 (follows: +2)
        //   # c             2 -> 4
        //   """Doc.         2 -> 4
        //   more"""         2 -> 4 (content follows)
        let roles = [Step, Follow, Step, Follow, Comment, Step, Follow];
        assert_eq!(
            rescale(&d(&[0, 6, 2, 8, 2, 2, 2]), &roles, 2, 4),
            d(&[0, 6, 4, 10, 4, 4, 4])
        );
        // x = g(1,          0
        //     2)            4 -> 8 (hangs one step below the line above)
        assert_eq!(rescale(&d(&[0, 4]), &[Step, Hang], 4, 8), d(&[0, 8]));
        // f() {  /  return {  /  a: 2,  /  };  /  }   from 4 to 2.
        assert_eq!(
            rescale(&d(&[0, 4, 8, 4, 0]), &[Step; 5], 4, 2),
            d(&[0, 2, 4, 2, 0])
        );
        // A remainder that is not a whole step stays.
        assert_eq!(rescale(&d(&[0, 2, 5]), &[Step; 3], 2, 4), d(&[0, 4, 9]));
        // Lines whose whole column is steps (`Math.copySign` in steps of 8):
        // counted from the line above, 72 after 67 would be 35 + 5.
        let roles = [Step, Column, Column, Column, Column, Column, Column];
        assert_eq!(
            rescale(&d(&[0, 8, 72, 67, 72, 73, 0]), &roles, 8, 4),
            d(&[0, 4, 36, 35, 36, 37, 0])
        );
        let roles = [Step, Step, Step, Step, Step, Step, Step];
        assert_eq!(
            rescale(&d(&[0, 8, 72, 67, 72, 73, 0]), &roles, 8, 4),
            d(&[0, 4, 36, 35, 40, 41, 0])
        );
    }
}
