"""Strips // comments (outside strings) from nvmesim's JSON-with-comments files."""


def strip(t):
    out, i, q = [], 0, False
    while i < len(t):
        c = t[i]
        if q:
            out.append(c)
            if c == "\\": out.append(t[i+1]); i += 1
            elif c == '"': q = False
        elif c == '"': q = True; out.append(c)
        elif t.startswith("//", i):
            while i < len(t) and t[i] != "\n": i += 1
            continue
        else: out.append(c)
        i += 1
    return "".join(out)
