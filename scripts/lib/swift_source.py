"""The tree's Swift read as text, shared by scripts/shape-report and scripts/docs-check (Python standard library only):
Package.swift's targets, each Swift file with its comments and string contents blanked, and the types, extensions
and members it declares. Regular expressions over the blanked text find braces and declarations that a comment or a
string would otherwise hide or fake; nothing here compiles or type-checks.
"""
import bisect
import os
import re


def package_targets(path="Package.swift"):
    """name → (kind, folder, dependencies) of every `.target`, `.executableTarget`, `.testTarget`, `.systemLibrary`
    and `.plugin` call in Package.swift (comments dropped; a dependency is any string of its `dependencies:`)."""
    text = re.sub(r"//[^\n]*", "", open(path, encoding="utf-8").read())
    targets = {}
    for m in re.finditer(r"\.(target|executableTarget|testTarget|systemLibrary|plugin|binaryTarget|macro)\(", text):
        depth, i = 1, m.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        body = text[m.end():i - 1]
        name = re.search(r'name:\s*"([^"]+)"', body).group(1)
        where = re.search(r'path:\s*"([^"]+)"', body)
        deps = re.search(r"dependencies:\s*\[(.*?)\]", body, re.S)
        kind = m.group(1)
        folder = where.group(1) if where else ("Tests/" if kind == "testTarget" else "Sources/") + name
        targets[name] = (kind, folder, re.findall(r'"([^"]+)"', deps.group(1)) if deps else [])
    return targets


def swift_files(*tops):
    return sorted(os.path.join(r, f) for top in tops for r, _, fs in os.walk(top) for f in fs if f.endswith(".swift"))


def _raw_string_start(text, i):
    return text[i] == "#" and re.match(r'#+"', text[i:i + 8])


class Swift:
    """A Swift file read once: `code` is its text with comments and the insides of string literals turned to
    spaces (same length, same lines), so that braces, words and declarations can be found by regular expressions;
    `literals` holds every string literal's line and text (its interpolations included)."""

    def __init__(self, path):
        self.path = path
        self.text = open(path, encoding="utf-8").read()
        self.starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        self.literals = []
        out = list(self.text)
        self._blank(out)
        self.code = "".join(out)
        self.declarations = []

    def line(self, offset):
        return bisect.bisect_right(self.starts, offset)

    def _blank(self, out):
        text, n = self.text, len(self.text)

        def blank(a, b):
            for k in range(a, b):
                if out[k] != "\n":
                    out[k] = " "

        def string(i):
            """The index after the string literal that starts at i (its #s, then one or three quotes)."""
            hashes = 0
            while text[i + hashes] == "#":
                hashes += 1
            quote = '"""' if text.startswith('"""', i + hashes) else '"'
            close = quote + "#" * hashes
            j = start = i + hashes + len(quote)
            while j < n:
                if text[j] == "\\" and text.startswith("#" * hashes, j + 1):
                    k = j + 1 + hashes
                    j = interpolation(k + 1) if k < n and text[k] == "(" else k + 1
                    continue
                if text.startswith(close, j):
                    self.literals.append((self.line(i), text[start:j]))
                    blank(start, j)
                    return j + len(close)
                if quote == '"' and text[j] == "\n":
                    break
                j += 1
            blank(start, j)
            return j

        def interpolation(i):
            """The index after the `)` that closes an interpolation whose code starts at i."""
            depth = 1
            while i < n:
                if text[i] == '"' or _raw_string_start(text, i):
                    i = string(i)
                    continue
                depth += {"(": 1, ")": -1}.get(text[i], 0)
                i += 1
                if depth == 0:
                    return i
            return i

        i = 0
        while i < n:
            if text.startswith("//", i):
                j = text.find("\n", i)
                j = n if j < 0 else j
                blank(i, j)
                i = j
            elif text.startswith("/*", i):
                depth, j = 1, i + 2
                while j < n and depth:
                    if text.startswith("/*", j):
                        depth, j = depth + 1, j + 2
                    elif text.startswith("*/", j):
                        depth, j = depth - 1, j + 2
                    else:
                        j += 1
                blank(i, j)
                i = j
            elif text[i] == '"' or _raw_string_start(text, i):
                i = string(i)
            else:
                i += 1

    def closing(self, open_brace):
        """The offset of the brace that closes the one at `open_brace`."""
        depth, code = 0, self.code
        for j in range(open_brace, len(code)):
            if code[j] == "{":
                depth += 1
            elif code[j] == "}":
                depth -= 1
                if depth == 0:
                    return j
        return len(code) - 1


# A type's or an extension's first line: attributes and modifiers, the keyword, the name.
DECLARES = re.compile(r"^[ \t]*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private|final|open|indirect)\s+)*"
                      r"(struct|enum|class|protocol|actor|extension)[ \t]+([A-Za-z_][\w.]*)", re.M)
KEYWORDS = {"func", "var", "let", "init", "subscript", "case", "protocol", "where", "static", "final"}
# A member's first word after its attributes and modifiers, and its name.
MEMBER = re.compile(r"(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private|open|static|class|final|override|"
                    r"mutating|nonmutating|nonisolated|convenience|required|lazy|indirect|weak|unowned|dynamic)\s+)*"
                    r"(func|var|let|case|init|subscript|typealias|associatedtype|struct|enum|class|protocol|actor)\b\s*([A-Za-z_]\w*)?")


class Declaration:
    """A type or extension with its body: `kind`, `name` (an extension's as written: `LiveIndex.State`), where its
    body opens and closes, whether it is generic (a type with generic parameters, a protocol, an extension of a
    protocol or one with a `where` clause)."""

    def __init__(self, swift, kind, name, start, header, open_brace):
        self.swift, self.kind, self.name, self.start, self.open = swift, kind, name, start, open_brace
        self.close = swift.closing(open_brace)
        self.header = header
        self.lines = (swift.line(start), swift.line(self.close))
        self.generic = kind == "protocol" or bool(re.match(r"\s*<", header)) or bool(re.search(r"\bwhere\b", header))

    def statements(self):
        """The offsets of the words directly in the body (not in a nested body, parentheses or brackets)."""
        code, depth, paren = self.swift.code, 0, 0
        for j in range(self.open + 1, self.close):
            c = code[j]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            elif c in "([":
                paren += 1
            elif c in ")]":
                paren -= 1
            elif depth == 0 and paren == 0 and c.isalpha() and not (code[j - 1].isalnum() or code[j - 1] in "_.@"):
                yield j

    def members(self):
        """The names declared directly in the body: functions, properties, enum cases (each of a `case a, b`),
        initializers (`init`), subscripts, nested types."""
        code, names = self.swift.code, set()
        for j in self.statements():
            m = MEMBER.match(code, j)
            if not m:
                continue
            kind, name = m.group(1), m.group(2)
            if kind in ("init", "subscript"):
                names.add(kind)
            elif kind == "case":
                rest = code[m.start(2) if name else m.end():code.find("\n", m.end())]
                rest = re.sub(r"\([^()]*\)", "", rest)
                names.update(re.findall(r"(?:^|,)\s*(\w+)", rest))
            elif name:
                names.add(name)
        return names


def declarations_of(swift):
    found = []
    for m in DECLARES.finditer(swift.code):
        if m.group(2) in KEYWORDS:
            continue
        brace = re.compile(r"[{}]").search(swift.code, m.end())
        if not brace or swift.code[brace.start()] != "{" or re.search(r"[=;]|\bfunc\b", swift.code[m.end():brace.start()]):
            continue
        found.append(Declaration(swift, m.group(1), m.group(2), m.start(), swift.code[m.end():brace.start()], brace.start()))
    return found


class Tree:
    """Every Swift file under the given folders, read, with its declarations; protocols and their extensions marked
    generic."""

    def __init__(self, *tops):
        self.files = {p: Swift(p) for p in swift_files(*tops)}
        self.declarations = []
        for swift in self.files.values():
            swift.declarations = declarations_of(swift)
            self.declarations += swift.declarations
        protocols = {d.name for d in self.declarations if d.kind == "protocol"}
        for d in self.declarations:
            if d.kind == "extension" and d.name.split(".")[-1] in protocols:
                d.generic = True

    def enclosing(self, swift, offset):
        """The declarations around `offset`, innermost first."""
        around = [d for d in swift.declarations if d.open < offset < d.close]
        return sorted(around, key=lambda d: d.open, reverse=True)

    def named(self, name, kinds=("struct", "enum", "class", "actor", "protocol", "extension")):
        """The declarations of a type by its name (an extension's last component: `extension LiveIndex.State`)."""
        return [d for d in self.declarations if d.name.split(".")[-1] == name and d.kind in kinds]
