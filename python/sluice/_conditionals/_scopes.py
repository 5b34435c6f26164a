"""The if/else scopes of a pipeline being defined with conditionals.

Inside a branch of an `if` on a DataNode only that branch's samples exist. Every operator
created there gets its inputs as the branch sees them: a DataNode produced outside the `if` is
split by the predicate of each scope between where it was produced and here (once per scope:
the splits are remembered). Operators without inputs (readers, random generators, constants)
produce the whole batch, as in DALI; their outputs are split when a branch uses them. The stack
is the pipeline's operator hook (see sluice._ops.OpInstance): before_op() places the inputs,
after_op() records where the outputs were produced.
"""

from sluice.data_node import DataNode

SPLIT = "_conditional.split"
MERGE = "_conditional.merge"


class _Scope:
    """One `if` on a DataNode: its predicate (as the enclosing branch sees it), the branch being
    traced (True, False, or None while the branches are merged) and what each branch produced."""

    def __init__(self, predicate):
        self.predicate = predicate
        self.branch = None
        self.produced = {True: set(), False: set(), None: set()}
        self.splits = {}  # id(node from an outer scope) -> (true part, false part)

    def sees(self, node):
        key = id(node)
        if self.branch is None:
            return any(key in p for p in self.produced.values())
        return key in self.produced[self.branch]


class ConditionStack:
    """The scopes from the pipeline function's body (the outermost, which sees everything) to
    the branch being traced."""

    def __init__(self):
        self._scopes = [_Scope(None)]
        self._home = {}  # id(node) -> the scope whose branch produced it
        self._keep = []  # the nodes whose ids are keys here stay alive while the trace does

    # --- the operator hook ----------------------------------------------------------------------
    def before_op(self, type_name, inputs, kwargs):
        if type_name in (SPLIT, MERGE):
            return inputs, kwargs  # placed by the runtime itself
        inputs = [self.place(x) if isinstance(x, DataNode) else x for x in inputs]
        kwargs = {k: self.place(v) if isinstance(v, DataNode) else v for k, v in kwargs.items()}
        return inputs, kwargs

    def after_op(self, op):
        if op.type not in (SPLIT, MERGE) and (op.inputs or op.arg_inputs):
            self.register(op.outputs)

    # --- scopes ---------------------------------------------------------------------------------
    def depth(self):
        return len(self._scopes) - 1

    def push(self, condition):
        """Enters an `if` on `condition`; returns the predicate as the enclosing branch sees it."""
        predicate = self.place(condition)
        if predicate.device != "cpu":
            raise ValueError(
                f'Invalid device "{predicate.device}" for argument \'predicate\' of operator '
                "'_conditional.split'. Named arguments must be on CPU.")
        self._scopes.append(_Scope(predicate))
        return predicate

    def pop(self):
        self._scopes.pop()

    def trace(self, branch):
        """Traces the `if` branch (True), the `else` branch (False) or the merge (None)."""
        self._scopes[-1].branch = branch

    def register(self, nodes):
        """Records `nodes` as produced in the branch being traced."""
        if len(self._scopes) == 1:
            return
        scope = self._scopes[-1]
        for n in nodes:
            scope.produced[scope.branch].add(id(n))
            self._home[id(n)] = scope
            self._keep.append(n)

    def branch_predicate(self):
        """The predicate of the innermost `if`, restricted to the branch being traced: a batch of
        the branch's size."""
        return self.place(self._scopes[-1].predicate)

    def place(self, node):
        """`node` as the branch being traced sees it."""
        level, seen = 0, node
        for lv in range(len(self._scopes) - 1, 0, -1):
            s = self._scopes[lv]
            if s.sees(node):
                level = lv
                break
            if id(node) in s.splits and s.branch is not None:
                level, seen = lv, s.splits[id(node)][0 if s.branch else 1]
                break
        home = self._home.get(id(node))
        if home is not None and (home not in self._scopes or self._scopes.index(home) > level):
            raise ValueError(
                f"{node!r} was produced inside a branch of an `if` and is used outside it; "
                "assign it to a variable in both branches to use it after the `if`")
        for lv in range(level + 1, len(self._scopes)):
            s = self._scopes[lv]
            assert s.branch is not None, "outer DataNodes are split before the merge"
            pair = s.splits.get(id(seen))
            if pair is None:
                from sluice._ops import make_node

                pair = tuple(make_node(SPLIT, [seen], {"predicate": s.predicate}))
                s.splits[id(seen)] = pair
                s.produced[True].add(id(pair[0]))
                s.produced[False].add(id(pair[1]))
                self._keep += [node, seen, *pair]
            s.splits[id(node)] = pair
            seen = pair[0] if s.branch else pair[1]
        return seen
