//! The starting state made for a talk ([`App::new`], the dashboard's own path): the leader is the
//! selection (Enter, `:` and the Audit tab
//! act on it, an `x` export highlights it), until the presenter picks another system. While the
//! bundle loads no system is selected (the status bar shows "…"), so it never flips between the
//! systems scored so far. Once made, the selection is the user's: a re-evaluation never moves it.

use super::App;

impl App {
    /// The first leaderboard of the whole engine arrived: select its leader unless the user
    /// has chosen a system since the automatic selection. Only once: a later leaderboard (the
    /// tie policy changed, `t`) leaves the selection where it is, so a presenter browsing one
    /// system's queries keeps browsing them under the new policy.
    pub(super) fn select_leader_unless_chosen(&mut self) {
        if self.partial {
            return;
        }
        let auto = self.auto_system.take();
        if auto != Some(self.settings.system) {
            return;
        }
        let Some(lb) = self.data.as_ref().and_then(|d| d.lb.as_ref()) else {
            self.auto_system = auto;
            return;
        };
        let (leader, second) = (lb.rows.first(), lb.rows.get(1));
        if let Some(s) = leader.map(|r| r.system) {
            self.settings.system = s;
            // The browser's side-by-side and the Pairs pane compare the leader with the
            // runner-up.
            if let Some(c) = second.map(|r| r.system) {
                self.settings.compare = c;
            }
        }
    }

    /// True while the bundle loads and only some systems are scored.
    pub fn loading_systems(&self) -> bool {
        self.partial
    }
}
