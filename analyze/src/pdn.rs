//! A streaming PDN reader: one game in memory at a time, whatever the file's size.
//!
//! Reads PDN 3.0 as real files write it: tag pairs, `{}` comments (also across lines),
//! `%` line comments, nested `()` variations (skipped), NAGs `$n` and `!?` marks, move
//! numbers `12.` and `12...`, every result form, `/FEN "..."/` setups in the movetext,
//! UTF-8 or Latin-1 (decided per line), CRLF. What is not PDN is reported with its line
//! and the reader goes on. Comments, variations, NAGs and move marks are kept as written
//! beside the move they follow, so that a report can write the game back unchanged.
//!
//! Memory is bounded whatever the input: a line by [`MAX_LINE`], a game by
//! [`MAX_GAME_BYTES`] (a larger one is read to its end and returned with
//! [`PdnGame::oversized`] set and nothing of it kept but its tags), the errors of a game
//! by [`MAX_ERRORS`].

use std::io::BufRead;

/// One game as written: tags, main-line move texts and result.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PdnGame {
    /// 1-based number of the game in its file.
    pub number: usize,
    /// Line where the game starts.
    pub line: usize,
    /// Tag pairs in order.
    pub tags: Vec<(String, String)>,
    /// A setup given in the movetext as `/FEN "..."/`.
    pub setup: Option<String>,
    /// The main line's moves.
    pub moves: Vec<MoveText>,
    /// The game termination marker (`2-0`, `1/2-1/2`, `*`, ...), if any.
    pub result: Option<String>,
    /// Text that is not PDN, with its line: reported, then skipped (the first
    /// [`MAX_ERRORS`], then one line saying more were found).
    pub errors: Vec<(usize, String)>,
    /// Comments, variations and NAGs before the first move, as written.
    pub preamble: Vec<String>,
    /// The game's text is larger than [`MAX_GAME_BYTES`]: its moves, comments and errors
    /// were not kept (its tags were, as far as the limit), and it is not to be analysed.
    pub oversized: bool,
    /// Bytes of text read for the game (from the end of the one before).
    pub bytes: u64,
}

/// A move of the main line as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveText {
    /// The move, marks (`!?`) removed.
    pub text: String,
    /// The marks written after it (`!`, `?!`, ...), if any.
    pub marks: String,
    /// Its line in the file.
    pub line: usize,
    /// Comments, variations and NAGs after it (before the next move), as written.
    pub after: Vec<String>,
}

impl PdnGame {
    /// The value of tag `name` (case-insensitive), if present.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// "White - Black" for messages, "?" for names not given.
    pub fn players(&self) -> String {
        let name = |tag| self.tag(tag).map(str::trim).filter(|n| !n.is_empty() && *n != "?").unwrap_or("?");
        format!("{} - {}", name("White"), name("Black"))
    }
}

/// The largest game read for analysis, in bytes of text: the longest games played
/// are some 200 moves, a few kilobytes even with comments; more is a broken file.
pub const MAX_GAME_BYTES: u64 = 1 << 20;

/// The most errors kept for one game; the rest are counted in a last line.
pub const MAX_ERRORS: usize = 100;

/// The longest line read; PDN lines are short (the standard asks for at most 255
/// characters), so a longer one is damage, not a game.
pub const MAX_LINE: usize = 1 << 20;

/// Whether a file's first line is UTF-16: its byte-order mark, or ASCII text with every
/// other byte zero.
fn is_utf16(first: &[u8]) -> bool {
    if first.starts_with(&[0xFF, 0xFE]) || first.starts_with(&[0xFE, 0xFF]) {
        return true;
    }
    let pairs = first.len() / 2;
    pairs >= 2 && {
        let zero_odd = first.chunks_exact(2).filter(|p| p[0] != 0 && p[1] == 0).count();
        let zero_even = first.chunks_exact(2).filter(|p| p[0] == 0 && p[1] != 0).count();
        zero_odd.max(zero_even) * 10 >= pairs * 9
    }
}

const RESULTS: [&str; 8] = ["2-0", "0-2", "1-1", "1-0", "0-1", "1/2-1/2", "0-0", "*"];

/// Decodes one line: UTF-8 when it is, Latin-1 otherwise (every byte is a character).
fn decode(bytes: &[u8]) -> String {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) => text.trim_start_matches('\u{feff}').to_string(),
        Err(_) => bytes.iter().map(|&b| b as char).collect(),
    }
}

/// Where the reader is inside the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Normal,
    /// Inside `{ ... }`, opened on this line.
    Comment(usize),
}

/// Reads games one by one from `input`.
pub struct PdnReader<R> {
    input: R,
    line: usize,
    mode: Mode,
    /// Variation depth: moves inside `( ... )` are not the main line.
    depth: usize,
    /// The line the outermost open variation was opened on.
    variation_line: usize,
    /// The game being read.
    game: PdnGame,
    games: usize,
    /// A game finished by its result, waiting to be returned.
    done: std::collections::VecDeque<PdnGame>,
    buffer: Vec<u8>,
    finished: bool,
    /// A comment or variation being read (it may span lines), kept as written.
    piece: Option<String>,
    /// Errors found beyond [`MAX_ERRORS`] in the current game.
    errors_over: usize,
    /// A move was read in the current game after it grew oversized (its moves are not
    /// kept, but a tag after them still starts the next game).
    moves_unkept: bool,
}

impl<R: BufRead> PdnReader<R> {
    /// A reader over `input`.
    pub fn new(input: R) -> PdnReader<R> {
        PdnReader {
            input,
            line: 0,
            mode: Mode::Normal,
            depth: 0,
            variation_line: 0,
            game: PdnGame::default(),
            games: 0,
            done: std::collections::VecDeque::new(),
            buffer: Vec::new(),
            finished: false,
            piece: None,
            errors_over: 0,
            moves_unkept: false,
        }
    }

    fn has_content(game: &PdnGame) -> bool {
        game.oversized
            || !game.tags.is_empty()
            || !game.moves.is_empty()
            || game.setup.is_some()
            || game.result.is_some()
    }

    /// Ends the current game (if it has anything) and starts the next.
    fn close_game(&mut self) {
        if let Some(piece) = self.piece.take() {
            self.keep_piece(piece);
        }
        if self.depth > 0 {
            // Its moves were not read as the main line: said, not swallowed.
            let opened = self.variation_line;
            self.error(format!("variation opened on line {opened} is not closed: its moves were read as a variation"));
        }
        if self.errors_over > 0 && !self.game.oversized {
            let line = self.line;
            self.game.errors.push((line, format!("and {} more errors in this game, not listed", self.errors_over)));
        }
        self.errors_over = 0;
        self.moves_unkept = false;
        let game = std::mem::take(&mut self.game);
        self.depth = 0;
        if PdnReader::<R>::has_content(&game) {
            self.done.push_back(game);
        } else {
            // Stray text between games belongs to the next one.
            self.game.errors = game.errors;
            self.game.preamble = game.preamble;
            self.game.bytes = game.bytes;
        }
    }

    /// Counts `bytes` more of the current game's text; past [`MAX_GAME_BYTES`] the game
    /// is marked oversized and what was kept of it let go.
    fn count(&mut self, bytes: usize) {
        self.game.bytes += bytes as u64;
        if self.game.bytes > MAX_GAME_BYTES && !self.game.oversized {
            self.begin_game();
            self.game.oversized = true;
            self.game.moves = Vec::new();
            self.game.errors = Vec::new();
            self.game.preamble = Vec::new();
            self.game.setup = None;
            self.piece = None;
            self.errors_over = 0;
        }
    }

    /// Keeps a comment, variation or NAG beside the move it follows.
    fn keep_piece(&mut self, piece: String) {
        if self.game.oversized {
            return;
        }
        match self.game.moves.last_mut() {
            Some(last) => last.after.push(piece),
            None => self.game.preamble.push(piece),
        }
    }

    fn begin_game(&mut self) {
        if !PdnReader::<R>::has_content(&self.game) {
            self.games += 1;
            self.game.number = self.games;
            self.game.line = self.line;
        }
    }

    fn error(&mut self, text: String) {
        if self.game.oversized {
            return;
        }
        if self.game.errors.len() >= MAX_ERRORS {
            self.errors_over += 1;
            return;
        }
        let line = self.line;
        self.game.errors.push((line, text));
    }

    /// Reads one line into the current game; `false` at the end of the input. A line
    /// longer than [`MAX_LINE`] ends the reading with an error (memory stays bounded
    /// whatever the input); so does UTF-16 text, with an error that says so.
    fn read_line(&mut self) -> std::io::Result<bool> {
        self.buffer.clear();
        if std::io::Read::take(&mut self.input, MAX_LINE as u64 + 1).read_until(b'\n', &mut self.buffer)? == 0 {
            return Ok(false);
        }
        self.line += 1;
        if self.line == 1 && is_utf16(&self.buffer) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "the file is UTF-16 text, which PDN is not: convert it to UTF-8 (iconv -f UTF-16 -t UTF-8)",
            ));
        }
        if self.buffer.len() > MAX_LINE && self.buffer.last() != Some(&b'\n') {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "line {}: longer than {} MiB, which no PDN line is (not a PDN file?)",
                    self.line,
                    MAX_LINE >> 20
                ),
            ));
        }
        self.count(self.buffer.len());
        let text = decode(&self.buffer);
        self.scan(&text);
        // A comment or variation goes on over the line's end: one space stands for it.
        if let Some(piece) = self.piece.as_mut().filter(|_| !self.game.oversized) {
            piece.push(' ');
        }
        Ok(true)
    }

    fn scan(&mut self, text: &str) {
        let chars: Vec<char> = text.chars().collect();
        let mut i = 0;
        if self.mode == Mode::Normal && chars.first() == Some(&'%') {
            return;
        }
        while i < chars.len() {
            let from = i;
            let kept_before = self.piece.is_some();
            let mode_before = self.mode;
            i = self.step(&chars, i);
            // Inside a comment or a variation (or opening or closing one), the text is
            // kept as written; the step that ends it hands the whole piece on. A step
            // that closed the game (a tag after an unclosed variation) took the piece
            // with it; nothing is kept of an oversized game.
            let open = matches!(self.mode, Mode::Comment(_)) || self.depth > 0;
            let taken = kept_before && self.piece.is_none();
            if (kept_before || open) && !taken && !self.game.oversized {
                let piece = self.piece.get_or_insert_with(String::new);
                if chars[from] == ';' && mode_before == Mode::Normal {
                    // A line comment inside a variation, as a `{}` comment: written
                    // back on one line, `;` would end the variation's text.
                    let rest: String = chars[from + 1..].iter().collect();
                    piece.push_str(&format!("{{{}}}", rest.trim().replace('}', ")")));
                } else {
                    piece.extend(&chars[from..i.min(chars.len())]);
                }
            }
            if !open && let Some(piece) = self.piece.take() {
                self.keep_piece(piece);
            }
        }
    }

    /// Reads the text at `chars[i]` (a comment's rest, a bracket, a tag, a token);
    /// returns the index after it.
    fn step(&mut self, chars: &[char], i: usize) -> usize {
        if let Mode::Comment(_) = self.mode {
            return match chars[i..].iter().position(|&c| c == '}') {
                Some(end) => {
                    self.mode = Mode::Normal;
                    i + end + 1
                }
                None => chars.len(),
            };
        }
        let c = chars[i];
        match c {
            c if c.is_whitespace() => i + 1,
            '{' => {
                self.mode = Mode::Comment(self.line);
                i + 1
            }
            '(' => {
                if self.depth == 0 {
                    self.variation_line = self.line;
                }
                self.depth += 1;
                i + 1
            }
            ')' => {
                if self.depth == 0 {
                    self.error("')' without '('".to_string());
                }
                self.depth = self.depth.saturating_sub(1);
                i + 1
            }
            '[' => self.tag(chars, i),
            '}' | ']' => {
                self.error(format!("'{c}' without its opening bracket"));
                i + 1
            }
            '/' => self.setup(chars, i),
            ';' => {
                // A comment to the end of the line, kept as a `{}` comment.
                if self.depth == 0 {
                    let rest: String = chars[i + 1..].iter().collect();
                    self.keep_piece(format!("{{{}}}", rest.trim().replace('}', ")")));
                }
                chars.len()
            }
            _ => {
                let token_end = |from: usize| {
                    chars[from..]
                        .iter()
                        .position(|&c| c.is_whitespace() || "{}()[];".contains(c))
                        .map_or(chars.len(), |n| from + n)
                };
                let mut end = token_end(i);
                let mut token: String = chars[i..end].iter().collect();
                // Right-aligned squares: "1- 7", "28x 19" are one move.
                if token.len() > 1 && token.ends_with(['-', 'x', ':']) {
                    let next = (end..chars.len()).find(|&j| chars[j] != ' ').unwrap_or(chars.len());
                    if next > end && chars.get(next).is_some_and(char::is_ascii_alphanumeric) {
                        end = token_end(next);
                        token.extend(&chars[next..end]);
                    }
                }
                self.token(&token);
                end
            }
        }
    }

    /// `[Name "value"]`; returns the index after it.
    fn tag(&mut self, chars: &[char], start: usize) -> usize {
        if !self.game.moves.is_empty() || self.game.result.is_some() || self.moves_unkept {
            // A tag after moves starts the next game (its result was missing).
            self.close_game();
        }
        self.begin_game();
        let mut i = start + 1;
        let mut name = String::new();
        while i < chars.len() && !chars[i].is_whitespace() && chars[i] != '"' && chars[i] != ']' {
            name.push(chars[i]);
            i += 1;
        }
        while i < chars.len() && chars[i].is_whitespace() {
            i += 1;
        }
        if chars.get(i) != Some(&'"') {
            self.error(format!("tag [{name} without a quoted value"));
            return chars[i..].iter().position(|&c| c == ']').map_or(chars.len(), |n| i + n + 1);
        }
        i += 1;
        let mut value = String::new();
        while i < chars.len() && chars[i] != '"' {
            if chars[i] == '\\' && i + 1 < chars.len() {
                i += 1;
            }
            value.push(chars[i]);
            i += 1;
        }
        if i >= chars.len() {
            self.error(format!("tag [{name} \"{value}: value not closed on its line"));
            return chars.len();
        }
        i += 1;
        let end = match chars[i..].iter().position(|&c| c == ']') {
            Some(n) => i + n + 1,
            None => {
                self.error(format!("tag [{name}: no closing ']'"));
                chars.len()
            }
        };
        if !self.game.oversized {
            self.game.tags.push((name, value));
        }
        end
    }

    /// `/FEN "..."/` in the movetext; returns the index after it.
    fn setup(&mut self, chars: &[char], start: usize) -> usize {
        let rest: String = chars[start + 1..].iter().collect();
        let Some(end) = rest.find('/') else {
            self.error(format!("'/' setup not closed: {rest}"));
            return chars.len();
        };
        let inner = rest[..end].trim();
        match inner.strip_prefix("FEN").map(str::trim) {
            Some(fen) if fen.len() >= 2 && fen.starts_with('"') && fen.ends_with('"') => {
                self.begin_game();
                if self.depth == 0 {
                    self.game.setup = Some(fen[1..fen.len() - 1].to_string());
                }
            }
            _ => self.error(format!("unknown setup /{inner}/")),
        }
        start + 1 + rest[..end].chars().count() + 1
    }

    fn token(&mut self, token: &str) {
        if let Some(nag) = token.strip_prefix('$') {
            if !nag.chars().all(|c| c.is_ascii_digit()) {
                self.error(format!("malformed NAG {token}"));
            } else if self.depth == 0 {
                self.keep_piece(token.to_string());
            }
            return;
        }
        if RESULTS.contains(&token) {
            if self.depth == 0 {
                self.begin_game();
                self.game.result = Some(token.to_string());
                self.close_game();
            }
            return;
        }
        // Move numbers, alone ("12." "12...") or glued to the move ("12.32-28").
        let digits = token.chars().take_while(char::is_ascii_digit).count();
        let dots = token[digits..].chars().take_while(|&c| c == '.').count();
        let written = if digits > 0 && dots > 0 { &token[digits + dots..] } else { token };
        let body = written.trim_end_matches(['!', '?', '+', '#']);
        if body.is_empty() || body.chars().all(|c| "!?".contains(c)) {
            if !written.is_empty() && self.depth == 0 {
                self.keep_piece(written.to_string()); // a mark standing apart: "32-28 !?"
            }
            return;
        }
        let looks_like_move = body.chars().all(|c| c.is_ascii_alphanumeric() || "-x:X×*".contains(c))
            && body.chars().any(|c| "-x:X×".contains(c));
        if !looks_like_move {
            self.error(format!("\"{token}\" is not a move"));
            return;
        }
        if self.depth == 0 {
            self.begin_game();
            if self.game.oversized {
                self.moves_unkept = true;
                return;
            }
            let line = self.line;
            let marks = written[body.len()..].to_string();
            self.game.moves.push(MoveText { text: body.to_string(), marks, line, after: Vec::new() });
        }
    }
}

impl<R: BufRead> Iterator for PdnReader<R> {
    type Item = std::io::Result<PdnGame>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(game) = self.done.pop_front() {
                return Some(Ok(game));
            }
            if self.finished {
                return None;
            }
            match self.read_line() {
                Ok(true) => {}
                Ok(false) => {
                    self.finished = true;
                    if let Mode::Comment(line) = self.mode {
                        self.error(format!("comment opened on line {line} is not closed"));
                    }
                    self.close_game();
                }
                Err(e) => {
                    self.finished = true;
                    return Some(Err(e));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_line_is_an_error_after_a_bounded_read() {
        // Endless NUL bytes (as /dev/zero): the reader stops at the limit with an error.
        let endless = std::io::BufReader::new(std::io::repeat(0));
        let mut reader = PdnReader::new(endless);
        let e = reader.next().expect("an item").expect_err("an error");
        assert!(e.to_string().contains("longer than 1 MiB"), "{e}");
        assert!(reader.next().is_none());
    }

    #[test]
    fn utf16_text_is_named_as_such() {
        let text = "[Event \"x\"]\n1. 32-28 *\n";
        let le: Vec<u8> = [0xFF, 0xFE].into_iter().chain(text.encode_utf16().flat_map(u16::to_le_bytes)).collect();
        let be_without_mark: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        for bytes in [le, be_without_mark] {
            let e = PdnReader::new(&bytes[..]).next().expect("an item").expect_err("UTF-16");
            assert!(e.to_string().contains("UTF-16"), "{e}");
        }
    }

    fn read(text: &[u8]) -> Vec<PdnGame> {
        PdnReader::new(text).collect::<Result<_, _>>().expect("in memory")
    }

    fn moves(g: &PdnGame) -> Vec<&str> {
        g.moves.iter().map(|m| m.text.as_str()).collect()
    }

    #[test]
    fn tags_moves_numbers_results() {
        let games = read(
            b"[Event \"A \\\"quoted\\\" name\"]\r\n[GameType \"20\"]\r\n\r\n1. 32-28 19-23 2. 28x19 14x23 2-0\r\n\
              [Event \"B\"]\n1.32-28 1... 19-23 1/2-1/2\n",
        );
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].tag("event"), Some("A \"quoted\" name"));
        assert_eq!(games[0].tag("GameType"), Some("20"));
        assert_eq!(moves(&games[0]), ["32-28", "19-23", "28x19", "14x23"]);
        assert_eq!(games[0].result.as_deref(), Some("2-0"));
        assert_eq!((games[0].number, games[1].number), (1, 2));
        assert_eq!(moves(&games[1]), ["32-28", "19-23"]);
        assert_eq!(games[1].result.as_deref(), Some("1/2-1/2"));
        assert_eq!(games[1].line, 5);
    }

    #[test]
    fn comments_variations_nags_and_marks_are_not_moves() {
        let games = read(
            b"[FEN \"W:W31-50:B1-20\"]\n32-28 {a comment\nover (two) lines} 19-23! (18-23 38-32 (37-32? 23-29!)\n\
              12-18) 28x19 $14 14x23?! \n% a line comment 1-0\n33-29 *\n",
        );
        assert_eq!(games.len(), 1, "{games:?}");
        assert_eq!(moves(&games[0]), ["32-28", "19-23", "28x19", "14x23", "33-29"]);
        assert_eq!(games[0].result.as_deref(), Some("*"));
        assert!(games[0].errors.is_empty(), "{:?}", games[0].errors);
    }

    #[test]
    fn setups_separators_and_every_result() {
        let games = read(b"/FEN \"W:Wc3:Bf6\"/ 1. c3-d4 f6-e5 2. d4:f6 0-1\n1. e3:g5:e7 1-1\n12-16  1- 7 28x 19 0-0\n");
        assert_eq!(games.len(), 3);
        assert_eq!(games[0].setup.as_deref(), Some("W:Wc3:Bf6"));
        assert_eq!(moves(&games[0]), ["c3-d4", "f6-e5", "d4:f6"]);
        assert_eq!(moves(&games[1]), ["e3:g5:e7"]);
        assert_eq!(moves(&games[2]), ["12-16", "1-7", "28x19"]);
        assert_eq!(games[2].result.as_deref(), Some("0-0"));
    }

    #[test]
    fn latin1_lines_and_broken_text_are_read_and_reported() {
        let mut text = b"[White \"J\xe9r\xf4me\"]\n[Black \"".to_vec();
        text.extend_from_slice(b"X\"]\n1. 32-28 ?? zz 19-23 { never closed\n");
        let games = read(&text);
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].tag("White"), Some("J\u{e9}r\u{f4}me"));
        assert_eq!(moves(&games[0]), ["32-28", "19-23"]);
        let errors: Vec<&str> = games[0].errors.iter().map(|(_, e)| e.as_str()).collect();
        assert!(errors.iter().any(|e| e.contains("\"zz\" is not a move")), "{errors:?}");
        assert!(errors.iter().any(|e| e.contains("not closed")), "{errors:?}");
    }

    #[test]
    fn a_missing_result_ends_the_game_at_the_next_tag() {
        let games = read(b"[Event \"1\"]\n1. 32-28 } ]\n[Event \"2\"]\n1. 33-29 2-0\n");
        assert_eq!(games.len(), 2);
        assert_eq!((games[0].result.clone(), moves(&games[1])), (None, vec!["33-29"]));
    }

    #[test]
    fn a_game_over_the_size_limit_is_returned_empty_and_marked_and_the_next_is_read() {
        let mut text = b"[Event \"huge\"]\n1. 32-28 ".to_vec();
        let words = b"a b c d e f g h i j k l m n o p q r s t\n";
        while text.len() as u64 <= MAX_GAME_BYTES + 100 {
            text.extend_from_slice(words);
        }
        text.extend_from_slice(b"2-0\n[Event \"next\"]\n1. 33-28 *\n");
        let games = read(&text);
        assert_eq!(games.len(), 2, "{:?}", games.iter().map(|g| (g.number, g.oversized)).collect::<Vec<_>>());
        let huge = &games[0];
        assert!(huge.oversized && huge.bytes > MAX_GAME_BYTES);
        assert!(huge.moves.is_empty() && huge.errors.is_empty() && huge.preamble.is_empty());
        assert_eq!((huge.tag("Event"), huge.result.as_deref()), (Some("huge"), Some("2-0")));
        assert!(!games[1].oversized);
        assert_eq!((games[1].number, moves(&games[1])), (2, vec!["33-28"]));
    }

    #[test]
    fn errors_past_the_limit_are_counted_not_kept() {
        let mut text = b"1. 32-28 ".to_vec();
        for _ in 0..MAX_ERRORS + 50 {
            text.extend_from_slice(b"zz ");
        }
        text.extend_from_slice(b"*\n");
        let games = read(&text);
        assert_eq!(games[0].errors.len(), MAX_ERRORS + 1);
        assert!(games[0].errors[MAX_ERRORS].1.contains("and 50 more errors"), "{:?}", games[0].errors.last());
    }

    #[test]
    fn an_oversized_game_without_a_result_ends_at_the_next_tag_and_numbers_hold() {
        let mut text = b"1. 32-28 ".to_vec();
        while text.len() as u64 <= MAX_GAME_BYTES + 100 {
            text.extend_from_slice(b"19-23 28x19\n");
        }
        text.extend_from_slice(b"\n[Event \"B\"]\n1. 33-28 2-0\n[Event \"C\"]\n1. 34-29 *\n");
        let games = read(&text);
        assert_eq!(games.len(), 3, "{:?}", games.iter().map(|g| (g.number, g.oversized)).collect::<Vec<_>>());
        assert!(games[0].oversized && games[0].number == 1 && games[0].line == 1);
        assert_eq!((games[1].number, games[1].tag("Event"), moves(&games[1])), (2, Some("B"), vec!["33-28"]));
        assert_eq!((games[2].number, games[2].tag("Event")), (3, Some("C")));
    }

    #[test]
    fn an_unclosed_comment_in_an_oversized_game_keeps_nothing_whatever_follows() {
        let mut text = b"1. 32-28 {".to_vec();
        while text.len() as u64 <= MAX_GAME_BYTES + 100 {
            text.extend_from_slice(b"words words words\n");
        }
        text.extend(std::iter::repeat_n(b'\n', 200_000));
        let mut reader = PdnReader::new(&text[..]);
        while reader.read_line().expect("in memory") {
            assert!(reader.piece.as_ref().is_none_or(|p| p.len() <= MAX_GAME_BYTES as usize + 2));
        }
        assert!(reader.game.oversized && reader.piece.is_none());
    }

    #[test]
    fn pieces_go_with_their_own_game_and_move() {
        // A variation left open, then the next game's tags: they are tags, not text.
        let games = read(b"[Event \"A\"]\n1. 32-28 (19-23\n[Event \"B\"]\n1. 33-28 !? 18-23 *\n");
        assert_eq!(games.len(), 2);
        assert_eq!(games[1].tag("Event"), Some("B"));
        assert!(games[1].preamble.iter().all(|p| !p.contains("[Event")), "{:?}", games[1].preamble);
        assert_eq!(games[1].moves[0].after, ["!?"]);
        assert!(
            games[0].errors.iter().any(|(_, e)| e.contains("variation opened on line 2 is not closed")),
            "{:?}",
            games[0].errors
        );
        // Left open at the end of the file, it is said too.
        let games = read(b"[Event \"A\"]\n1. 32-28 (1. 33-28\n");
        assert_eq!(moves(&games[0]), ["32-28"]);
        assert!(
            games[0].errors.iter().any(|(_, e)| e.contains("variation opened on line 2 is not closed")),
            "{:?}",
            games[0].errors
        );
        // A comment going on over a line that starts with ';' is still the comment.
        let games = read(b"1. 32-28 {a comment\n; still the comment} 19-23 *\n");
        assert_eq!(games[0].moves[0].after, ["{a comment ; still the comment}"]);
        assert_eq!(moves(&games[0]), ["32-28", "19-23"]);
    }
}
