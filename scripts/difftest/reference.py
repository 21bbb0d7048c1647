"""An independent reference implementation of the draughts move rules.

Written for cross-checking kabe: plain (row, col) coordinates and dictionaries, no
bitboards, nothing shared with the Rust code. Slow and simple on purpose. Covers every
kabe variant through the same rule flags (board size, backward man captures, flying
kings, king landing rule, which capture may be chosen (free, majority, king first, the
Italian precedence), whether men may take kings, crowning during a capture).
"""

from dataclasses import dataclass

DIRS = [(-1, -1), (-1, 1), (1, -1), (1, 1)]


@dataclass(frozen=True)
class Rules:
    size: int
    first: str  # 'W' or 'B'
    men_back_capture: bool
    king_flying_move: bool
    king_flying_capture: bool
    must_land_to_continue: bool
    choice: str  # 'free', 'majority', 'king-first' (Czech), 'italian'
    crowning: str  # 'stays', 'continue', 'stop'
    men_take_kings: bool = True
    # Italian books number the mirrored board; the rules do not change, only the names:
    # this reference numbers every board alike and the caller translates (compare.py).
    mirrored: bool = False


RULES = {
    "international": Rules(10, "W", True, True, True, True, "majority", "stays"),
    "russian": Rules(8, "W", True, True, True, True, "free", "continue"),
    "russian-free-landing": Rules(8, "W", True, True, True, False, "free", "continue"),
    "kabe": Rules(8, "B", False, True, True, True, "free", "stop"),
    "kabe-short-king-capture": Rules(8, "B", False, True, False, True, "free", "stop"),
    "english": Rules(8, "B", False, False, False, True, "free", "stop"),
    "italian": Rules(8, "W", False, False, False, True, "italian", "stop", men_take_kings=False, mirrored=True),
    "pool": Rules(8, "B", True, True, True, True, "free", "stays"),
    "brazilian": Rules(8, "W", True, True, True, True, "majority", "stays"),
    "czech": Rules(8, "W", False, True, True, True, "king-first", "stop"),
}
# The games played to lose move as their base games.
RULES["giveaway"] = RULES["kabe"]
RULES["antidraughts"] = RULES["international"]
RULES["poddavki"] = RULES["russian"]


def square_to_rc(size, n):
    """Square number (1-based, PDN order from White's top-left) to (row, col)."""
    half = size // 2
    row, k = divmod(n - 1, half)
    return row, 2 * k + (1 if row % 2 == 0 else 0)


def rc_to_square(size, rc):
    row, col = rc
    return row * (size // 2) + col // 2 + 1


def rc_to_alg(size, rc):
    row, col = rc
    return "abcdefghij"[col] + str(size - row)


def alg_to_rc(size, name):
    return size - int(name[1:]), "abcdefghij".index(name[0])


def parse_fen(size, fen):
    """'W:W31,K40:B1' (numeric or algebraic) -> (turn, {(r, c): 'w'|'W'|'b'|'B'})."""
    fen = fen.strip().rstrip(".")
    parts = fen.split(":")
    turn = parts[0].upper()
    board = {}
    for part in parts[1:]:
        if not part or part[0].upper() not in "WB":
            continue
        color = part[0].upper()
        for tok in filter(None, part[1:].split(",")):
            king = tok[0] in "Kk"
            tok = tok[1:] if king else tok
            if "-" in tok:
                lo, hi = map(int, tok.split("-"))
                squares = [square_to_rc(size, n) for n in range(lo, hi + 1)]
            elif tok[0].isdigit():
                squares = [square_to_rc(size, int(tok))]
            else:
                squares = [alg_to_rc(size, tok.lower())]
            for rc in squares:
                board[rc] = color if king else color.lower()
    return turn, board


def canonical(size, turn, board):
    """A hashable canonical form: turn and sorted (square number, piece)."""
    return turn, tuple(sorted((rc_to_square(size, rc), p) for rc, p in board.items()))


class Position:
    def __init__(self, variant, turn, board):
        self.variant = variant
        self.r = RULES[variant]
        self.turn = turn
        self.board = board

    @classmethod
    def from_fen(cls, variant, fen):
        turn, board = parse_fen(RULES[variant].size, fen)
        return cls(variant, turn, board)

    def on(self, rc):
        return 0 <= rc[0] < self.r.size and 0 <= rc[1] < self.r.size

    def forward(self, color):
        return -1 if color == "W" else 1

    def promo_row(self, color):
        return 0 if color == "W" else self.r.size - 1

    def legal_moves(self):
        """List of moves (from, to, captured frozenset, promotes, path)."""
        caps = self.captures()
        if caps:
            if self.r.choice == "majority":
                best = max(len(c[2]) for c in caps)
                caps = [c for c in caps if len(c[2]) == best]
            elif self.r.choice == "king-first" and any(self.board[c[0]].isupper() for c in caps):
                caps = [c for c in caps if self.board[c[0]].isupper()]
            elif self.r.choice == "italian":
                best = max(self.italian_rank(c) for c in caps)
                caps = [c for c in caps if self.italian_rank(c) == best]
            seen, out = set(), []
            for c in caps:
                key = c[:4]
                if key not in seen:
                    seen.add(key)
                    out.append(c)
            return out
        return self.quiet_moves()

    def italian_rank(self, move):
        """FID art. 6: most pieces; then by a king; then most kings taken; then the king
        met first. Kings are short in Italian draughts, so the piece taken on each step is
        the square between the two squares of the path."""
        path = move[4]
        taken = [((a[0] + b[0]) // 2, (a[1] + b[1]) // 2) for a, b in zip(path, path[1:])]
        kings = [self.board[t].isupper() for t in taken]
        first_king = next((i for i, k in enumerate(kings) if k), len(kings))
        return (len(taken), self.board[move[0]].isupper(), sum(kings), -first_king)

    def quiet_moves(self):
        out = []
        me = self.turn
        for rc, p in self.board.items():
            if p.upper() != me:
                continue
            if p.islower():
                for dc in (-1, 1):
                    to = (rc[0] + self.forward(me), rc[1] + dc)
                    if self.on(to) and to not in self.board:
                        out.append((rc, to, frozenset(), to[0] == self.promo_row(me), (rc, to)))
            else:
                for d in DIRS:
                    to = (rc[0] + d[0], rc[1] + d[1])
                    while self.on(to) and to not in self.board:
                        out.append((rc, to, frozenset(), False, (rc, to)))
                        if not self.r.king_flying_move:
                            break
                        to = (to[0] + d[0], to[1] + d[1])
        return out

    def captures(self):
        out = []
        me = self.turn
        for rc, p in list(self.board.items()):
            if p.upper() != me:
                continue
            occupied = dict(self.board)
            del occupied[rc]  # the mover has left its square
            self._extend(rc, rc, p.isupper(), False, frozenset(), (rc,), occupied, out)
        return out

    def _enemy(self, occupied, sq, captured, king=True):
        if not (sq in occupied and occupied[sq].upper() != self.turn and sq not in captured):
            return False
        return king or self.r.men_take_kings or occupied[sq].islower()

    def _jumps(self, at, king, captured, occupied):
        """Possible single captures from `at`: list of (captured square, [landings])."""
        result = []
        dirs = DIRS
        if not king and not self.r.men_back_capture:
            dirs = [d for d in DIRS if d[0] == self.forward(self.turn)]
        for d in dirs:
            sq = (at[0] + d[0], at[1] + d[1])
            if king and self.r.king_flying_capture:
                while self.on(sq) and sq not in occupied:
                    sq = (sq[0] + d[0], sq[1] + d[1])
            if not self.on(sq) or not self._enemy(occupied, sq, captured, king):
                continue
            lands = []
            land = (sq[0] + d[0], sq[1] + d[1])
            while self.on(land) and land not in occupied:
                lands.append(land)
                if not (king and self.r.king_flying_capture):
                    break
                land = (land[0] + d[0], land[1] + d[1])
            if lands:
                result.append((sq, lands))
        return result

    def _extend(self, origin, at, king, crowned, captured, path, occupied, out):
        jumps = self._jumps(at, king, captured, occupied)
        if not jumps:
            if captured:
                promotes = crowned or (not king and at[0] == self.promo_row(self.turn))
                out.append((origin, at, captured, promotes, path))
            return
        for over, lands in jumps:
            cap = captured | {over}
            if king and self.r.must_land_to_continue and self.r.choice != "majority":
                going_on = [l for l in lands if self._jumps(l, True, cap, occupied)]
                if going_on:
                    lands = going_on
            for land in lands:
                now_king, now_crowned = king, crowned
                if not king and land[0] == self.promo_row(self.turn):
                    if self.r.crowning == "stop":
                        out.append((origin, land, cap, True, path + (land,)))
                        continue
                    if self.r.crowning == "continue":
                        now_king, now_crowned = True, True
                self._extend(origin, land, now_king, now_crowned, cap, path + (land,), occupied, out)

    def play(self, move):
        frm, to, captured, promotes, _ = move
        board = dict(self.board)
        piece = board.pop(frm)
        for c in captured:
            del board[c]
        board[to] = piece.upper() if promotes else piece
        return Position(self.variant, "B" if self.turn == "W" else "W", board)

    def canonical(self):
        return canonical(self.r.size, self.turn, self.board)

    def fen(self):
        def side(color):
            items = sorted((rc_to_square(self.r.size, rc), p) for rc, p in self.board.items() if p.upper() == color)
            return ",".join(("K" if p.isupper() else "") + str(n) for n, p in items)

        return f"{self.turn}:W{side('W')}:B{side('B')}"


def start(variant):
    r = RULES[variant]
    per_side = (r.size // 2 - 1) * (r.size // 2)
    n = r.size * r.size // 2
    return Position.from_fen(variant, f"{r.first}:W{n - per_side + 1}-{n}:B1-{per_side}")


def perft(pos, depth):
    if depth == 0:
        return 1
    moves = pos.legal_moves()
    if depth == 1:
        return len(moves)
    return sum(perft(pos.play(m), depth - 1) for m in moves)
