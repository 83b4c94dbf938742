//! Which hardware pipe an op call runs on, told the way PyPTO's backend tells it for ops with no
//! rule of their own (`Backend::TryInferPipe`, its common PTO rule): from the spaces the call reads
//! and the space it writes, and the chip's direct memory routes.
//!
//! - A transfer runs on the pipe of its route: DDR into Vec or Mat is MTE2, Vec (or Mat) out to DDR
//!   is MTE3, Acc out (to DDR, Mat, or Vec where the chip has that route) is FIX, Mat into an L0
//!   buffer is MTE1, Vec into Mat (Ascend950 only) is MTE3. A pair with no direct route has no pipe.
//! - `tile.move` within one on-chip space runs on V; across spaces, on its route's pipe.
//! - A result in an on-chip space: a DDR input makes it a load; else one on-chip source in another
//!   space makes it that transfer; else all in Vec is V, all in L0 buffers is M.
//! - A result in DDR is a store from the one on-chip space its inputs are in.
//!
//! Anything else (a scalar result, inputs in several spaces) has no pipe we can name: PyPTO's
//! penalty model leaves such an allocation out, and the handovers count it as neither same- nor
//! cross-pipe. Ops that PyPTO says touch no memory (declarations, zero-copy views) are not
//! recorded as accesses at all (`dump::access`). No op of PyPTO's backends registers a rule of its
//! own today, so the common rule is the whole of it.

use crate::model::{Access, Accesses, Mem, Pipe};

/// The direct memory routes of a chip that differ between the built-in ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Routes {
    /// Ascend950 (`a5`) moves Vec to Mat, Acc to Vec, and Mat to the scale buffers; Ascend910B
    /// (`a2a3`) does none of these.
    a5: bool,
}

impl Routes {
    /// The routes of the chip of PTO target arch `arch`; a chip this tool does not know (a SoC
    /// file's) gets Ascend910B's, the routes every chip has.
    pub fn of(arch: &str) -> Routes {
        Routes { a5: arch == "a5" }
    }

    fn direct(self, from: Mem, to: Mem) -> bool {
        use Mem::*;
        match (from, to) {
            (Ddr, Vec | Mat) | (Vec, Ddr) | (Mat, Left | Right | Bias) | (Acc, Mat | Ddr) => true,
            (Vec, Mat) | (Mat, LeftScale | RightScale) | (Acc, Vec) => self.a5,
            _ => false,
        }
    }

    /// The pipe that moves bytes from `from` to `to` directly, if any.
    fn transfer(self, from: Mem, to: Mem) -> Option<Pipe> {
        use Mem::*;
        if !self.direct(from, to) {
            return None;
        }
        match (from, to) {
            (Ddr, Vec | Mat) => Some(Pipe::Mte2),
            (Vec | Mat, Ddr) | (Vec, Mat) => Some(Pipe::Mte3),
            (Acc, _) => Some(Pipe::Fix),
            (Mat, l0) if l0.is_l0() => Some(Pipe::Mte1),
            _ => None,
        }
    }
}

/// The pipe `a` runs on with `routes`, if one can be told.
pub fn infer(a: &Access, routes: Routes) -> Option<Pipe> {
    let inputs: Vec<Mem> = a.inputs.iter().collect();
    if a.op == "tile.move" {
        let (Some(to), [from]) = (a.result, &inputs[..]) else { return None };
        if a.input_count != 1 {
            return None;
        }
        if *from == to && !matches!(to, Mem::Ddr | Mem::ScalarLocal) {
            return Some(Pipe::V);
        }
        return routes.transfer(*from, to);
    }
    match a.result {
        Some(Mem::ScalarLocal) => Some(Pipe::S),
        Some(Mem::Ddr) => {
            let local: Vec<Mem> = inputs.into_iter().filter(|m| !matches!(m, Mem::Ddr | Mem::ScalarLocal)).collect();
            match local[..] {
                [from] => routes.transfer(from, Mem::Ddr),
                _ => None,
            }
        }
        Some(to) => {
            if a.inputs.contains(Mem::Ddr) {
                return routes.transfer(Mem::Ddr, to);
            }
            let sources: Vec<Mem> = inputs.iter().copied().filter(|&m| m != Mem::ScalarLocal && m != to).collect();
            if let [from] = sources[..]
                && let Some(pipe) = routes.transfer(from, to)
            {
                return Some(pipe);
            }
            if to == Mem::Vec && inputs.iter().all(|m| matches!(m, Mem::Vec | Mem::ScalarLocal)) {
                return Some(Pipe::V);
            }
            if to.is_l0() && inputs.iter().all(|m| m.is_l0()) {
                return Some(Pipe::M);
            }
            None
        }
        None => None,
    }
}

/// Fills in the pipes of a tile's first and last access.
pub fn resolve(accesses: &mut Accesses, routes: Routes) {
    for a in [&mut accesses.first, &mut accesses.last].into_iter().flatten() {
        a.pipe = infer(a, routes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Mems;

    fn call(op: &str, inputs: &[Mem], result: Option<Mem>) -> Access {
        let mut set = Mems::default();
        inputs.iter().for_each(|&m| set.insert(m));
        let input_count = inputs.len() as u8;
        Access { line: 1, op: op.into(), inputs: set, input_count, result, pipe: None }
    }

    #[test]
    fn transfers_run_on_their_routes_pipe() {
        let a2 = Routes::of("a2a3");
        let a5 = Routes::of("a5");
        let load = call("tile.load", &[Mem::Ddr], Some(Mem::Vec));
        assert_eq!(infer(&load, a2), Some(Pipe::Mte2));
        let store = call("tile.store", &[Mem::Vec, Mem::Ddr], Some(Mem::Ddr));
        assert_eq!(infer(&store, a2), Some(Pipe::Mte3));
        let extract = call("tile.extract", &[Mem::Mat], Some(Mem::Left));
        assert_eq!(infer(&extract, a2), Some(Pipe::Mte1));
        let fix = call("tile.store", &[Mem::Acc, Mem::Ddr], Some(Mem::Ddr));
        assert_eq!(infer(&fix, a2), Some(Pipe::Fix));
        // Acc to Vec is a route of Ascend950 only.
        let acc_to_vec = call("tile.move", &[Mem::Acc], Some(Mem::Vec));
        assert_eq!(infer(&acc_to_vec, a2), None);
        assert_eq!(infer(&acc_to_vec, a5), Some(Pipe::Fix));
        let vec_to_mat = call("tile.move", &[Mem::Vec], Some(Mem::Mat));
        assert_eq!((infer(&vec_to_mat, a2), infer(&vec_to_mat, a5)), (None, Some(Pipe::Mte3)));
    }

    #[test]
    fn compute_runs_on_v_or_m() {
        let a2 = Routes::of("a2a3");
        assert_eq!(infer(&call("tile.add", &[Mem::Vec], Some(Mem::Vec)), a2), Some(Pipe::V));
        // No input with a space (tile.full): all of none is in Vec.
        assert_eq!(infer(&call("tile.full", &[], Some(Mem::Vec)), a2), Some(Pipe::V));
        let mm = call("tile.matmul_acc", &[Mem::Acc, Mem::Left, Mem::Right], Some(Mem::Acc));
        assert_eq!(infer(&mm, a2), Some(Pipe::M));
        assert_eq!(infer(&call("tile.move", &[Mem::Vec], Some(Mem::Vec)), a2), Some(Pipe::V));
        // A scalar result, or a move of two inputs, has no pipe to name.
        assert_eq!(infer(&call("tile.read", &[Mem::Vec], None), a2), None);
        let mut two = call("tile.move", &[Mem::Vec], Some(Mem::Vec));
        two.input_count = 2;
        assert_eq!(infer(&two, a2), None);
        // A store from two on-chip spaces is no one route.
        assert_eq!(infer(&call("tile.store", &[Mem::Vec, Mem::Mat], Some(Mem::Ddr)), a2), None);
    }
}
