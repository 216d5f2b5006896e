//! Where an entry's seq and its row in the index part ways: after a gap.
//!
//! Owns: [`Seqs`], the map between seqs and positions in the index. Entries a failed write
//! lost had seqs (a reply names its request's, a follower saw them go by) but have no row, so
//! after a gap the row at position `p` holds a seq above `p`. Pure, and small: one record per
//! gap, never one per entry lost.
//! Refuses: why entries were lost (`sink`) and the rows themselves (`WireLog`).

/// Seqs without rows, just before the row at `pos`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Run {
    /// The position of the row after the gap.
    pos: u64,
    /// The first seq without a row.
    first: u64,
    /// Seqs without rows up to the end of this run, this run's included.
    lost_through: u64,
}

/// The gaps between seqs and positions, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Seqs {
    runs: Vec<Run>,
}

impl Seqs {
    /// Seqs without rows before every position from the last gap on.
    fn lost(&self) -> u64 {
        self.runs.last().map_or(0, |r| r.lost_through)
    }

    /// Notes that the row at `pos` (the next one: every row before it is placed) holds `seq`;
    /// seqs skipped since the row before are a gap. A seq at or below the one expected (only a
    /// file Sonde did not write can say so) is taken to be the expected one.
    pub(super) fn place(&mut self, pos: u64, seq: u64) {
        let lost = self.lost();
        let expected = pos + lost;
        if seq > expected {
            self.runs.push(Run { pos, first: expected, lost_through: lost + (seq - expected) });
        }
    }

    /// Forgets the rows from `pos` on: their entries never wholly reached the file. The seqs
    /// they held join the gap the next row placed opens.
    pub(super) fn truncate(&mut self, pos: u64) {
        self.runs.retain(|r| r.pos < pos);
    }

    /// The seq of the row at `pos`.
    pub(super) fn seq(&self, pos: u64) -> u64 {
        let i = self.runs.partition_point(|r| r.pos <= pos);
        pos + i.checked_sub(1).map_or(0, |i| self.runs[i].lost_through)
    }

    /// The position of the first row whose seq is `seq` or above (past the last row when none
    /// is: the caller bounds it by the index's length).
    pub(super) fn pos(&self, seq: u64) -> u64 {
        let i = self.runs.partition_point(|r| r.first <= seq);
        let Some(run) = i.checked_sub(1).map(|i| self.runs[i]) else { return seq };
        if seq < run.pos + run.lost_through {
            run.pos
        } else {
            seq - run.lost_through
        }
    }

    /// The position of the row holding `seq`, if one does among the first `len`.
    pub(super) fn exact(&self, seq: u64, len: u64) -> Option<u64> {
        let pos = self.pos(seq);
        (pos < len && self.seq(pos) == seq).then_some(pos)
    }

    /// Where the rows from `pos` stop having consecutive seqs: the position after which the
    /// next gap lies, if there is one.
    pub(super) fn next_gap(&self, pos: u64) -> Option<u64> {
        let i = self.runs.partition_point(|r| r.pos <= pos);
        self.runs.get(i).map(|r| r.pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows holding `seqs`, placed in order.
    fn placed(seqs: &[u64]) -> Seqs {
        let mut map = Seqs::default();
        for (pos, &seq) in seqs.iter().enumerate() {
            map.place(pos as u64, seq);
        }
        map
    }

    #[test]
    fn without_gaps_a_seq_is_its_position() {
        let map = placed(&[0, 1, 2, 3]);
        assert_eq!(map, Seqs::default());
        for n in 0..4 {
            assert_eq!((map.seq(n), map.pos(n), map.exact(n, 4)), (n, n, Some(n)));
        }
        assert_eq!(map.exact(4, 4), None);
        assert_eq!(map.next_gap(0), None);
    }

    #[test]
    fn seqs_in_a_gap_have_no_row_and_lead_to_the_row_after_it() {
        // Rows hold 0 1 | 5 6 | 9: seqs 2-4 and 7-8 were lost.
        let map = placed(&[0, 1, 5, 6, 9]);
        let seqs: Vec<u64> = (0..5).map(|p| map.seq(p)).collect();
        assert_eq!(seqs, [0, 1, 5, 6, 9]);
        // seq -> (first position at or above it, the row holding it)
        let table = [
            (0, 0, Some(0)),
            (1, 1, Some(1)),
            (2, 2, None),
            (4, 2, None),
            (5, 2, Some(2)),
            (6, 3, Some(3)),
            (7, 4, None),
            (8, 4, None),
            (9, 4, Some(4)),
            (10, 5, None),
        ];
        for (seq, pos, exact) in table {
            assert_eq!((map.pos(seq), map.exact(seq, 5)), (pos, exact), "seq {seq}");
        }
        assert_eq!(
            (map.next_gap(0), map.next_gap(1), map.next_gap(2), map.next_gap(4)),
            (Some(2), Some(2), Some(4), None)
        );
        assert_eq!(map.lost(), 5);
    }

    #[test]
    fn rows_forgotten_join_the_next_gap() {
        // Rows 0 1 | 5 6 7 were written; 6 and 7 never wholly reached the file; the next row
        // written is 12: the gap is 2-4 then 6-11.
        let mut map = placed(&[0, 1, 5, 6, 7]);
        map.truncate(3);
        map.place(3, 12);
        let seqs: Vec<u64> = (0..4).map(|p| map.seq(p)).collect();
        assert_eq!(seqs, [0, 1, 5, 12]);
        assert_eq!((map.pos(6), map.exact(6, 4), map.exact(12, 4)), (3, None, Some(3)));
        // A gap whose row after it is forgotten goes with it.
        map.truncate(2);
        map.place(2, 13);
        assert_eq!((map.seq(1), map.seq(2), map.pos(3), map.lost()), (1, 13, 2, 11));
    }
}
