"""Straight-line programs: polynomial systems as sequences of sums and products.

A ``Program`` computes m outputs from
* n **variables** x (the unknowns; derivatives are taken with respect to them),
* one scalar **path parameter** s (the homotopy parameter; its derivative is taken too),
* q **constants per path** c (slices, gammas, parameter values of a path: no derivative),
by a list of instructions in static single assignment: every instruction writes a new slot.
Slots 0..n-1 hold x, slot n holds s, slots n+1..n+q hold c, then one slot per instruction.

Instructions (``code`` rows (op, a, b)): ``CONST`` (value ``consts[a]``), ``ADD``, ``SUB``,
``MUL`` (slots a, b), ``SCALE`` (slot a times ``consts[b]``). The compiled evaluator
(``witness.kernels``) runs them in forward mode: each slot carries its value and its
derivatives with respect to x and s (n + 1 tangent entries), restricted to the static range
[lo, hi) of entries that can be nonzero (a monomial x1^3 x2 has range [0, 2)), which makes
expanded polynomials as cheap in forward mode as their derivative monomials.

Programs are built by tracing ordinary arithmetic on ``Node`` objects (``ProgramBuilder``):
any code written with +, -, * and integer powers (the network's forward pass over object arrays,
``np.matmul`` included) yields a program. ``from_system`` converts an expanded
``PolynomialSystem`` (its monomial tree, then the terms; a randomized system is evaluated
through its original and the randomization). ``homogenize`` gives the program of the
homogenized system in n + 1 variables (x0 first), used for tracking on a patch of projective
space (``witness.tracking``).

Degrees: every slot has a degree bound in x (variables 1, constants/s/c 0, sums max, products
sum); outputs of a homogenized program are homogeneous of these degrees.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from numbers import Number
from typing import Callable, Sequence

import numpy as np

from .system import PolynomialSystem, _monomial_tree

CONST, ADD, SUB, MUL, SCALE = 0, 1, 2, 3, 4
OP_NAMES = ("const", "add", "sub", "mul", "scale")


@dataclass(frozen=True, eq=False)
class Program:
    """A straight-line program (module docstring).

    Attributes
    ----------
    n_vars, n_consts : int
        Numbers of variables x and of constants per path c.
    code : int64 (L, 3)
        Instructions (op, a, b); instruction k writes slot ``n_vars + 1 + n_consts + k``.
    consts : complex128 (K,)
        Constant pool.
    outputs : int64 (m,)
        Slots of the outputs.
    lo, hi : int64 (S,)
        Per slot, the range [lo, hi) of tangent entries (x_0..x_{n-1}, then s at index n) that
        can be nonzero; lo = hi for constants.
    degrees : int64 (S,)
        Degree bound in x per slot.
    variables : tuple of str
        Names of the variables (for messages and systems).
    """

    n_vars: int
    n_consts: int
    code: np.ndarray
    consts: np.ndarray
    outputs: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    degrees: np.ndarray
    variables: tuple[str, ...] = ()
    info: dict = field(default_factory=dict, repr=False)

    @property
    def n_outputs(self) -> int:
        return len(self.outputs)

    @property
    def n_slots(self) -> int:
        return self.n_vars + 1 + self.n_consts + len(self.code)

    @property
    def output_degrees(self) -> np.ndarray:
        return self.degrees[self.outputs]

    def __repr__(self) -> str:
        return (f"Program({self.n_outputs} outputs in {self.n_vars} variables, "
                f"{self.n_consts} constants per path, {len(self.code)} instructions, degrees "
                f"{sorted(set(self.output_degrees.tolist()))})")

    def evaluate(self, X, s=0.0, C=None, jacobian: bool = False):
        """Values (and derivatives) at points, through the compiled evaluator.

        Parameters
        ----------
        X : complex (p, n) or (n,)
        s : complex scalar or (p,)
        C : complex (p, q) or (q,) or None (q = 0)
        jacobian : bool
            Also return the derivatives with respect to x, (p, m, n), and s, (p, m).

        Returns
        -------
        complex128 (p, m) [, (p, m, n), (p, m)] (leading axis dropped for a single point).

        Raises
        ------
        ValueError
            Wrong shapes or non-finite input.
        """
        from . import kernels
        X = np.asarray(X, complex)
        single = X.ndim == 1
        X = np.atleast_2d(X)
        p = len(X)
        if X.shape[1] != self.n_vars or not np.all(np.isfinite(X)):
            raise ValueError(f"points must be finite with shape (p, {self.n_vars}), got "
                             f"{X.shape}")
        S = np.broadcast_to(np.asarray(s, complex), (p,)).copy()
        C = np.zeros((p, 0), complex) if C is None else \
            np.broadcast_to(np.asarray(C, complex), (p, self.n_consts)).copy()
        if C.shape != (p, self.n_consts):
            raise ValueError(f"constants must have shape (p, {self.n_consts})")
        f, J = kernels.evaluate_batch(self.arrays(), X, S, C, jacobian)
        if not jacobian:
            return f[0] if single else f
        Jx, Js = J[..., :self.n_vars], J[..., self.n_vars]
        return (f[0], Jx[0], Js[0]) if single else (f, Jx, Js)

    def arrays(self) -> tuple:
        """The arrays the compiled kernels take: (code, consts, outputs, lo, hi, n_vars,
        n_consts)."""
        return (self.code, self.consts, self.outputs, self.lo, self.hi, self.n_vars,
                self.n_consts)


# ----------------------------------------------------------------------------- building
class Node:
    """A slot of a program under construction; arithmetic records instructions."""

    __slots__ = ("builder", "slot")

    def __init__(self, builder: "ProgramBuilder", slot: int):
        self.builder, self.slot = builder, slot

    def _lift(self, other) -> "Node | None":
        if isinstance(other, Node):
            if other.builder is not self.builder:
                raise ValueError("nodes of different programs cannot be combined")
            return other
        return None

    def __add__(self, other):
        return self.builder.add(self, other)

    __radd__ = __add__

    def __sub__(self, other):
        return self.builder.sub(self, other)

    def __rsub__(self, other):
        return self.builder.sub(other, self)

    def __mul__(self, other):
        return self.builder.mul(self, other)

    __rmul__ = __mul__

    def __neg__(self):
        return self.builder.scale(self, -1)

    def __pos__(self):
        return self

    def __pow__(self, k):
        if not isinstance(k, (int, np.integer)) or k < 0:
            raise ValueError(f"only nonnegative integer powers, got {k!r}")
        return self.builder.power(self, int(k))

    def __truediv__(self, other):
        if isinstance(other, Node):
            raise ValueError("division by a program value is not polynomial")
        return self.builder.scale(self, 1 / _number(other))


def _number(c) -> complex:
    if isinstance(c, Fraction):
        return complex(float(c))
    if isinstance(c, Number):
        c = complex(c)
        if not np.isfinite(c):
            raise ValueError(f"constant {c} is not finite")
        return c
    if hasattr(c, "p") and hasattr(c, "q"):          # python-flint fmpq / fmpz
        return complex(int(c.p) / int(c.q))
    raise TypeError(f"{c!r} is not a number or a program node")


class ProgramBuilder:
    """Records a program: ``variables()``, ``path_parameter()``, ``constants()`` give input
    nodes; arithmetic on nodes (and numbers) records instructions with constant folding
    (x + 0, x * 1, x * 0, constant op constant); ``build(outputs)`` returns the Program."""

    def __init__(self, n_vars: int, n_consts: int = 0, names: Sequence[str] | None = None):
        if n_vars < 1 or n_consts < 0:
            raise ValueError(f"need n_vars >= 1 and n_consts >= 0, got {n_vars}, {n_consts}")
        self.n_vars, self.n_consts = n_vars, n_consts
        self.names = tuple(names) if names is not None else tuple(f"x{i}" for i in range(n_vars))
        if len(self.names) != n_vars:
            raise ValueError(f"{len(self.names)} names for {n_vars} variables")
        base = n_vars + 1 + n_consts
        self.code: list[tuple[int, int, int]] = []
        self.consts: list[complex] = []
        self._const_index: dict[complex, int] = {}
        self._const_slot: dict[complex, int] = {}
        self.lo = list(range(n_vars)) + [n_vars] + [0] * n_consts
        self.hi = list(range(1, n_vars + 1)) + [n_vars + 1] + [0] * n_consts
        self.deg = [1] * n_vars + [0] + [0] * n_consts
        self.value: dict[int, complex] = {}        # slots known to be constant
        self._base = base
        self._cache: dict[tuple, int] = {}

    # -- inputs
    def variables(self) -> list[Node]:
        return [Node(self, i) for i in range(self.n_vars)]

    def path_parameter(self) -> Node:
        return Node(self, self.n_vars)

    def constants(self) -> list[Node]:
        return [Node(self, self.n_vars + 1 + j) for j in range(self.n_consts)]

    # -- low level
    def _const_pool(self, c: complex) -> int:
        if c not in self._const_index:
            self._const_index[c] = len(self.consts)
            self.consts.append(c)
        return self._const_index[c]

    def _emit(self, op: int, a: int, b: int, lo: int, hi: int, deg: int) -> int:
        key = (op, a, b)
        if key in self._cache:                      # common subexpressions once
            return self._cache[key]
        slot = self._base + len(self.code)
        self.code.append(key)
        self.lo.append(lo if lo < hi else 0)
        self.hi.append(hi if lo < hi else 0)
        self.deg.append(deg)
        self._cache[key] = slot
        return slot

    def const(self, c) -> Node:
        c = _number(c)
        if c not in self._const_slot:
            slot = self._emit(CONST, self._const_pool(c), 0, 0, 0, 0)
            self.value[slot] = c
            self._const_slot[c] = slot
        return Node(self, self._const_slot[c])

    def _node(self, x) -> Node:
        if isinstance(x, Node):
            if x.builder is not self:
                raise ValueError("nodes of different programs cannot be combined")
            return x
        return self.const(x)

    def _range(self, a: int, b: int) -> tuple[int, int]:
        la, ha, lb, hb = self.lo[a], self.hi[a], self.lo[b], self.hi[b]
        if la >= ha:
            return lb, hb
        if lb >= hb:
            return la, ha
        return min(la, lb), max(ha, hb)

    # -- arithmetic with folding
    def add(self, x, y) -> Node:
        x, y = self._node(x), self._node(y)
        vx, vy = self.value.get(x.slot), self.value.get(y.slot)
        if vx is not None and vy is not None:
            return self.const(vx + vy)
        if vx == 0:
            return y
        if vy == 0:
            return x
        a, b = sorted((x.slot, y.slot))
        lo, hi = self._range(a, b)
        return Node(self, self._emit(ADD, a, b, lo, hi, max(self.deg[a], self.deg[b])))

    def sub(self, x, y) -> Node:
        x, y = self._node(x), self._node(y)
        vx, vy = self.value.get(x.slot), self.value.get(y.slot)
        if vx is not None and vy is not None:
            return self.const(vx - vy)
        if vy == 0:
            return x
        if vx == 0:
            return self.scale(y, -1)
        lo, hi = self._range(x.slot, y.slot)
        return Node(self, self._emit(SUB, x.slot, y.slot, lo, hi,
                                     max(self.deg[x.slot], self.deg[y.slot])))

    def mul(self, x, y) -> Node:
        if not isinstance(x, Node):
            x, y = y, x
        x = self._node(x)
        if not isinstance(y, Node):
            return self.scale(x, y)
        y = self._node(y)
        if y.slot in self.value:
            return self.scale(x, self.value[y.slot])
        if x.slot in self.value:
            return self.scale(y, self.value[x.slot])
        a, b = sorted((x.slot, y.slot))
        lo, hi = self._range(a, b)
        return Node(self, self._emit(MUL, a, b, lo, hi, self.deg[a] + self.deg[b]))

    def scale(self, x, c) -> Node:
        x, c = self._node(x), _number(c)
        if x.slot in self.value:
            return self.const(self.value[x.slot] * c)
        if c == 1:
            return x
        if c == 0:
            return self.const(0)
        return Node(self, self._emit(SCALE, x.slot, self._const_pool(c), self.lo[x.slot],
                                     self.hi[x.slot], self.deg[x.slot]))

    def power(self, x, k: int) -> Node:
        out, base = self.const(1), x
        while k:                                    # square and multiply
            if k & 1:
                out = self.mul(out, base)
            k >>= 1
            if k:
                base = self.mul(base, base)
        return out

    def linear_combination(self, coeffs: Sequence, nodes: Sequence) -> Node:
        """sum_j coeffs[j] * nodes[j] (zero coefficients skipped)."""
        out = self.const(0)
        for c, x in zip(coeffs, nodes):
            if c != 0:
                out = self.add(out, self.mul(x, c))
        return out

    def dot(self, xs: Sequence, ys: Sequence) -> Node:
        """sum_j xs[j] * ys[j] for nodes or numbers."""
        out = self.const(0)
        for x, y in zip(xs, ys):
            out = self.add(out, self.mul(x, y))
        return out

    def build(self, outputs: Sequence, info: dict | None = None) -> Program:
        """The program with these outputs (nodes or numbers); unused instructions are
        removed."""
        out_slots = [self._node(o).slot for o in outputs]
        if not out_slots:
            raise ValueError("a program needs at least one output")
        return _pruned(self, out_slots, info or {})


def _pruned(b: ProgramBuilder, out_slots: list[int], info: dict) -> Program:
    """Keep the instructions the outputs depend on, renumbered."""
    base = b._base
    need = np.zeros(len(b.code), bool)
    stack = [s for s in out_slots if s >= base]
    while stack:
        k = stack.pop() - base
        if need[k]:
            continue
        need[k] = True
        op, a, c = b.code[k]
        for s in ((a, c) if op in (ADD, SUB, MUL) else (a,) if op == SCALE else ()):
            if s >= base and not need[s - base]:
                stack.append(s)
    new_slot = np.arange(base + len(b.code))
    kept = np.flatnonzero(need)
    new_slot[base + kept] = base + np.arange(len(kept))
    code = np.array([b.code[k] for k in kept], dtype=np.int64).reshape(-1, 3)
    for col, ops in ((1, (ADD, SUB, MUL, SCALE)), (2, (ADD, SUB, MUL))):
        mask = np.isin(code[:, 0], ops)
        code[mask, col] = new_slot[code[mask, col]]
    slots = np.concatenate([np.arange(base), base + kept])
    lo = np.array(b.lo, dtype=np.int64)[slots]
    hi = np.array(b.hi, dtype=np.int64)[slots]
    deg = np.array(b.deg, dtype=np.int64)[slots]
    return Program(b.n_vars, b.n_consts, code, np.array(b.consts, complex),
                   new_slot[np.array(out_slots, dtype=np.int64)], lo, hi, deg, b.names, info)


def trace(fn: Callable[..., Sequence], n_vars: int, n_consts: int = 0,
          names: Sequence[str] | None = None, with_path_parameter: bool = False,
          info: dict | None = None) -> Program:
    """Program of ``fn(x_nodes[, s_node], c_nodes)``: fn receives lists of nodes and returns
    the outputs (nodes, numbers or an array of them)."""
    b = ProgramBuilder(n_vars, n_consts, names)
    args = [b.variables()]
    if with_path_parameter:
        args.append(b.path_parameter())
    args.append(b.constants())
    outs = fn(*args)
    return b.build(list(np.asarray(outs, dtype=object).reshape(-1)), info)


# ----------------------------------------------------------------------------- systems
def emit_system(b: ProgramBuilder, F: PolynomialSystem, x: Sequence[Node]) -> list[Node]:
    """Record the equations of F at the nodes x: the monomial tree of F (one product per
    monomial) and the terms; a randomized F through its original and the randomization."""
    if F.randomization is not None:
        inner = emit_system(b, F.original, x)
        return [b.linear_combination(row, inner) for row in F.randomization]
    needed = {e for p in F.polynomials for e in p}
    order, levels = _monomial_tree(needed, F.n_vars)
    mono: list[Node | None] = [None] * len(order)
    mono[0] = b.const(1)
    for start, stop, g, h in levels:
        for r in range(start, stop):
            mono[r] = x[h[r - start]] if g is None else b.mul(mono[g[r - start]],
                                                              mono[h[r - start]])
    index = {e: r for r, e in enumerate(order)}
    out = []
    for p in F.polynomials:
        terms = sorted(p.items(), key=lambda t: index[t[0]])
        out.append(b.linear_combination([complex(c) for _, c in terms],
                                        [mono[index[e]] for e, _ in terms]))
    return out


def from_system(F: PolynomialSystem) -> Program:
    """The program of an expanded PolynomialSystem (cached on the system)."""
    cached = F.__dict__.get("_program")
    if cached is not None:
        return cached
    b = ProgramBuilder(F.n_vars, 0, F.variables)
    prog = b.build(emit_system(b, F, b.variables()), {"source": "expanded polynomials"})
    F.__dict__["_program"] = prog           # frozen dataclass: cache beside cached_property
    return prog


# ----------------------------------------------------------------------------- composition
def emit_program(b: ProgramBuilder, P: Program, xs: Sequence, s=0, cs: Sequence = ()) -> list:
    """Replay P inside the builder b with its variables, path parameter and constants bound to
    the given nodes (or numbers); returns the output nodes."""
    if len(xs) != P.n_vars or len(cs) != P.n_consts:
        raise ValueError(f"program needs {P.n_vars} variables and {P.n_consts} constants, got "
                         f"{len(xs)} and {len(cs)}")
    slots = [b._node(v) for v in xs] + [b._node(s)] + [b._node(v) for v in cs]
    for op, a, c in P.code:
        if op == CONST:
            slots.append(b.const(P.consts[a]))
        elif op == ADD:
            slots.append(b.add(slots[a], slots[c]))
        elif op == SUB:
            slots.append(b.sub(slots[a], slots[c]))
        elif op == MUL:
            slots.append(b.mul(slots[a], slots[c]))
        else:
            slots.append(b.scale(slots[a], P.consts[c]))
    return [slots[o] for o in P.outputs]


# ----------------------------------------------------------------------------- homogenization
def homogenize(P: Program, n_hom: int | None = None, name: str = "x_h") -> Program:
    """The homogenization of P in its first ``n_hom`` variables (default all): a program in
    n + 1 variables (x0 first, then P's variables in order), outputs x0^D_i f_i(x / x0, y) with
    D_i the degree bounds of the outputs in those variables; the other variables y, s and the
    constants per path count as degree 0. Every slot of degree e becomes x0^e v(x / x0, y):
    sums multiply the lower-degree side by a power of x0. Raises ValueError for a bad n_hom."""
    n, q = P.n_vars, P.n_consts
    n_hom = n if n_hom is None else int(n_hom)
    if not 0 < n_hom <= n:
        raise ValueError(f"n_hom must be in 1..{n}, got {n_hom}")
    names = tuple(P.variables) if P.variables else tuple(f"x{i}" for i in range(n))
    b = ProgramBuilder(n + 1, q, (name,) + names)
    xs = b.variables()
    x0 = xs[0]
    slots: list[Node] = xs[1:] + [b.path_parameter()] + b.constants()
    deg = [1] * n_hom + [0] * (n - n_hom) + [0] * (1 + q)
    powers = {0: b.const(1), 1: x0}

    def x0pow(k: int) -> Node:
        top = max(powers)
        while top < k:                       # iterative: a recursion 1000 deep overflowed
            powers[top + 1] = b.mul(powers[top], x0)
            top += 1
        return powers[k]

    for op, a, c in P.code:
        if op == CONST:
            node, d = b.const(P.consts[a]), 0
        elif op in (ADD, SUB):
            d = max(deg[a], deg[c])
            u = b.mul(slots[a], x0pow(d - deg[a]))
            v = b.mul(slots[c], x0pow(d - deg[c]))
            node = b.add(u, v) if op == ADD else b.sub(u, v)
        elif op == MUL:
            node, d = b.mul(slots[a], slots[c]), deg[a] + deg[c]
        else:
            node, d = b.scale(slots[a], P.consts[c]), deg[a]
        slots.append(node)
        deg.append(d)
    out_deg = [deg[o] for o in P.outputs]
    return b.build([slots[o] for o in P.outputs],
                   {**P.info, "homogenized": n_hom, "homogeneous_degrees": out_deg})
