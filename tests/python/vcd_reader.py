"""A small reader of Value Change Dump files (IEEE 1364-2005, section 18): scopes, variables and their changes."""


class Var:
    def __init__(self, scope, name, kind, width):
        self.scope, self.name, self.kind, self.width = scope, name, kind, width
        self.changes = []  # [(time, value)]

    @property
    def path(self):
        return ".".join(self.scope + [self.name])

    def at(self, time):
        """The value at `time` (the last change at or before it)."""
        value = None
        for t, v in self.changes:
            if t > time:
                break
            value = v
        return value


class Vcd:
    def __init__(self, text):
        self.timescale = None
        self.vars = {}  # path -> Var
        self.scopes = set()
        self.times = []
        by_code = {}
        scope = []
        tokens = iter(text.split())
        time = 0
        for tok in tokens:
            if tok == "$scope":
                kind, name = next(tokens), next(tokens)
                assert next(tokens) == "$end", "malformed $scope"
                scope.append(name)
                self.scopes.add(".".join(scope))
            elif tok == "$upscope":
                assert next(tokens) == "$end"
                scope.pop()
            elif tok == "$var":
                kind, width, code, name = next(tokens), int(next(tokens)), next(tokens), next(tokens)
                rest = next(tokens)
                while rest != "$end":  # a bit range "[31:0]"
                    rest = next(tokens)
                v = Var(list(scope), name, kind, width)
                self.vars[v.path] = v
                by_code.setdefault(code, []).append(v)
            elif tok == "$timescale":
                parts = []
                for t in tokens:
                    if t == "$end":
                        break
                    parts.append(t)
                self.timescale = " ".join(parts)
            elif tok.startswith("$"):
                if tok in ("$dumpvars", "$dumpon", "$dumpoff", "$dumpall", "$end"):
                    continue
                for t in tokens:  # $date, $version, $comment, $enddefinitions ...
                    if t == "$end":
                        break
            elif tok[0] == "#":
                time = int(tok[1:])
                self.times.append(time)
            elif tok[0] in "bB":
                self._set(by_code, next(tokens), time, int(tok[1:], 2) if set(tok[1:]) <= {"0", "1"} else tok[1:])
            elif tok[0] in "rR":
                self._set(by_code, next(tokens), time, float(tok[1:]))
            elif tok[0] in "01xXzZ":
                self._set(by_code, tok[1:], time, int(tok[0]) if tok[0] in "01" else tok[0])
            else:
                raise ValueError(f"unexpected VCD token {tok!r}")
        assert not scope, "unbalanced $scope/$upscope"

    @staticmethod
    def _set(by_code, code, time, value):
        if code not in by_code:
            raise ValueError(f"value change for undeclared identifier {code!r}")
        for v in by_code[code]:
            v.changes.append((time, value))
