//! The mutation families (one per `bug_type`) and the operator set a build uses
//! (`execscope build --operators paper|all|LIST`).
//!
//! The paper's six are the default, so a bundle built without `--operators` is the one the
//! paper's construction gives; `all` adds the catalogue's further families (MutPy's, mutmut's
//! and Cosmic Ray's operators that the six do not cover; docs/bundle-format.md, "Bug types").

use execscope_core::bundle::model::{BUG_TYPES, MORE_BUG_TYPES};
use std::collections::BTreeSet;
use std::fmt;

/// One mutation family; its [`Family::as_str`] is the `bug_type` of the mutants it makes.
/// Declaration order is report order (the paper's six, then the catalogue's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    OffByOne,
    OffByOneBoundary,
    RemoveEdgeCaseCheck,
    SwapArguments,
    WrongComparison,
    WrongOperator,
    NegateCondition,
    DeleteStatement,
    RemoveSliceIndex,
    WrongLoopIterations,
    ValueToNone,
    WrongStringMethod,
    WrongExceptionHandling,
    WrongConstant,
    RemoveUnaryOperator,
}

impl Family {
    /// The paper's six, in [`BUG_TYPES`] order.
    pub const PAPER: [Family; 6] = [
        Family::OffByOne,
        Family::OffByOneBoundary,
        Family::RemoveEdgeCaseCheck,
        Family::SwapArguments,
        Family::WrongComparison,
        Family::WrongOperator,
    ];

    /// Every family, in report order.
    pub const ALL: [Family; 15] = [
        Family::OffByOne,
        Family::OffByOneBoundary,
        Family::RemoveEdgeCaseCheck,
        Family::SwapArguments,
        Family::WrongComparison,
        Family::WrongOperator,
        Family::NegateCondition,
        Family::DeleteStatement,
        Family::RemoveSliceIndex,
        Family::WrongLoopIterations,
        Family::ValueToNone,
        Family::WrongStringMethod,
        Family::WrongExceptionHandling,
        Family::WrongConstant,
        Family::RemoveUnaryOperator,
    ];

    /// The `bug_type` name (stable; the core lists the same names in report order).
    pub fn as_str(self) -> &'static str {
        match self {
            Family::OffByOne => BUG_TYPES[0],
            Family::OffByOneBoundary => BUG_TYPES[1],
            Family::RemoveEdgeCaseCheck => BUG_TYPES[2],
            Family::SwapArguments => BUG_TYPES[3],
            Family::WrongComparison => BUG_TYPES[4],
            Family::WrongOperator => BUG_TYPES[5],
            Family::NegateCondition => MORE_BUG_TYPES[0],
            Family::DeleteStatement => MORE_BUG_TYPES[1],
            Family::RemoveSliceIndex => MORE_BUG_TYPES[2],
            Family::WrongLoopIterations => MORE_BUG_TYPES[3],
            Family::ValueToNone => MORE_BUG_TYPES[4],
            Family::WrongStringMethod => MORE_BUG_TYPES[5],
            Family::WrongExceptionHandling => MORE_BUG_TYPES[6],
            Family::WrongConstant => MORE_BUG_TYPES[7],
            Family::RemoveUnaryOperator => MORE_BUG_TYPES[8],
        }
    }

    /// The family named `name` (a `bug_type`).
    pub fn from_name(name: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.as_str() == name)
    }

    pub fn is_paper(self) -> bool {
        Family::PAPER.contains(&self)
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The families a build mutates with. Parsed from `paper` (the default), `all`, or a comma
/// list of family names where `paper` may stand for the six (`paper,negate_condition`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operators(BTreeSet<Family>);

impl Default for Operators {
    fn default() -> Self {
        Operators::paper()
    }
}

impl Operators {
    pub fn paper() -> Operators {
        Operators(Family::PAPER.into_iter().collect())
    }

    pub fn all() -> Operators {
        Operators(Family::ALL.into_iter().collect())
    }

    /// A set of exactly these families.
    pub fn of(families: &[Family]) -> Operators {
        Operators(families.iter().copied().collect())
    }

    pub fn contains(&self, f: Family) -> bool {
        self.0.contains(&f)
    }

    /// True when the `bug_type` `name` is one of the set's families.
    pub fn contains_name(&self, name: &str) -> bool {
        Family::from_name(name).is_some_and(|f| self.contains(f))
    }

    /// The families, in report order.
    pub fn families(&self) -> Vec<Family> {
        self.0.iter().copied().collect()
    }

    /// The families' `bug_type` names, in report order: the order in which selection's
    /// round-robin visits them.
    pub fn names(&self) -> Vec<&'static str> {
        self.0.iter().map(|f| f.as_str()).collect()
    }

    /// True when no family beyond the paper's six is in the set.
    pub fn paper_only(&self) -> bool {
        self.0.iter().all(|f| f.is_paper())
    }
}

impl fmt::Display for Operators {
    /// `paper`, `all`, or the comma list of names in report order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == Operators::paper() {
            f.write_str("paper")
        } else if *self == Operators::all() {
            f.write_str("all")
        } else {
            f.write_str(&self.names().join(","))
        }
    }
}

impl std::str::FromStr for Operators {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut set = BTreeSet::new();
        for item in s.split(',').map(str::trim) {
            match item {
                "paper" => set.extend(Family::PAPER),
                "all" => set.extend(Family::ALL),
                name => match Family::from_name(name) {
                    Some(f) => {
                        set.insert(f);
                    }
                    None => {
                        let names: Vec<&str> = Family::ALL.iter().map(|f| f.as_str()).collect();
                        return Err(format!(
                            "unknown operator family {name:?}: use paper, all, or a comma list \
                             of {}",
                            names.join(", ")
                        ));
                    }
                },
            }
        }
        Ok(Operators(set))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_cores_in_report_order() {
        let names: Vec<&str> = Family::ALL.iter().map(|f| f.as_str()).collect();
        let core: Vec<&str> = BUG_TYPES.iter().chain(&MORE_BUG_TYPES).copied().collect();
        assert_eq!(names, core);
        assert_eq!(Operators::paper().names(), BUG_TYPES);
        for f in Family::ALL {
            assert_eq!(Family::from_name(f.as_str()), Some(f));
            assert_eq!(f.is_paper(), BUG_TYPES.contains(&f.as_str()));
        }
    }

    #[test]
    fn operator_sets_parse_and_print_back() {
        let p: Operators = "paper".parse().unwrap();
        assert_eq!(p, Operators::default());
        assert_eq!(p.to_string(), "paper");
        assert!(p.paper_only());
        assert_eq!("all".parse::<Operators>().unwrap().to_string(), "all");
        assert_eq!(
            "paper,wrong_constant,negate_condition,off_by_one"
                .parse::<Operators>()
                .unwrap()
                .names()[6..],
            ["negate_condition", "wrong_constant"]
        );
        let one: Operators = " wrong_string_method ".parse().unwrap();
        assert_eq!(one.to_string(), "wrong_string_method");
        assert!(!one.paper_only());
        let all_by_name = Family::ALL.map(|f| f.as_str()).join(",");
        assert_eq!(all_by_name.parse::<Operators>(), Ok(Operators::all()));
        let e = "paper,negate".parse::<Operators>().unwrap_err();
        assert!(
            e.contains("\"negate\"") && e.contains("negate_condition"),
            "{e}"
        );
        assert!("".parse::<Operators>().is_err());
    }
}
