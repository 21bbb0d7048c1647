//! The documentation names only what is there: every repository path in README.md,
//! ARCHITECTURE.md, docs/*.md and the READMEs of data/, capi/ and python/ (in backticks,
//! in shell blocks, as a link) exists, and every `kabe` command line they show is one the built binary takes:
//! its subcommand exists and so does each `--flag` given to it (asked of `kabe <sub>
//! --help`, not of a list kept here). CHANGELOG.md is history and may name what has gone.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The documents checked, relative to the repository root.
fn documents(root: &Path) -> Vec<String> {
    let mut docs: Vec<String> = [
        "README.md",
        "ARCHITECTURE.md",
        "data/README.md",
        "capi/README.md",
        "python/README.md",
        "data/pdn-corpus/README.md",
    ]
    .map(String::from)
    .to_vec();
    let mut pages: Vec<String> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    pages.sort();
    docs.extend(pages);
    docs
}

/// A markdown text taken apart: inline code spans, link targets, fenced blocks.
#[derive(Default)]
struct Parts {
    spans: Vec<String>,
    links: Vec<String>,
    /// (language, lines) of each fenced block.
    blocks: Vec<(String, Vec<String>)>,
}

fn parts(text: &str) -> Parts {
    let mut parts = Parts::default();
    let mut prose = String::new();
    let mut block: Option<(String, Vec<String>)> = None;
    for line in text.lines() {
        let fence = line.trim_start().starts_with("```");
        match (&mut block, fence) {
            (None, true) => block = Some((line.trim_start().trim_start_matches('`').trim().to_string(), Vec::new())),
            (Some(_), true) => parts.blocks.extend(block.take()),
            (Some((_, lines)), false) => lines.push(line.to_string()),
            (None, false) => {
                prose.push_str(line);
                prose.push('\n');
            }
        }
    }
    parts.blocks.extend(block);
    // Code spans (CommonMark: a run of n backticks closes at the next run of exactly n).
    let chars: Vec<char> = prose.chars().collect();
    let run_at = |i: usize| chars[i..].iter().take_while(|&&c| c == '`').count();
    let mut outside = String::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            outside.push(chars[i]);
            i += 1;
            continue;
        }
        let n = run_at(i);
        let mut j = i + n;
        let close = loop {
            if j >= chars.len() {
                break None;
            }
            if chars[j] == '`' {
                let m = run_at(j);
                if m == n {
                    break Some(j);
                }
                j += m;
            } else {
                j += 1;
            }
        };
        match close {
            Some(j) => {
                let span: String = chars[i + n..j].iter().collect();
                parts.spans.push(span.replace('\n', " ").trim().to_string());
                i = j + n;
            }
            None => {
                outside.extend(&chars[i..i + n]);
                i += n;
            }
        }
    }
    // Link targets: `](target)` or `](target "title")`, outside code spans.
    for (at, _) in outside.match_indices("](") {
        let rest = &outside[at + 2..];
        if let Some(end) = rest.find(')') {
            let target = rest[..end].split_whitespace().next().unwrap_or("");
            parts.links.push(target.trim_matches(|c| c == '<' || c == '>').to_string());
        }
    }
    parts
}

/// The `*` of one path component against a name.
fn wildcard(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((head, tail)) => {
            name.starts_with(head)
                && (0..=name.len() - head.len())
                    .any(|k| name.is_char_boundary(head.len() + k) && wildcard(tail, &name[head.len() + k..]))
        }
    }
}

/// Whether `path` (relative to `base`; `*` matches within a component) names something.
fn exists(base: &Path, path: &str) -> bool {
    let mut here = vec![base.to_path_buf()];
    for component in path.split('/').filter(|c| !c.is_empty() && *c != ".") {
        here = here
            .into_iter()
            .flat_map(|dir| -> Vec<PathBuf> {
                if component == ".." {
                    vec![dir.join("..")]
                } else if component.contains('*') {
                    std::fs::read_dir(&dir)
                        .map(|entries| {
                            entries
                                .filter_map(|e| e.ok())
                                .filter(|e| wildcard(component, &e.file_name().to_string_lossy()))
                                .map(|e| e.path())
                                .collect()
                        })
                        .unwrap_or_default()
                } else {
                    vec![dir.join(component)]
                }
            })
            .filter(|p| p.exists())
            .collect();
    }
    !here.is_empty()
}

/// The entries of a folder a doc names paths under (`target/` is build output).
fn top_level(root: &Path) -> BTreeSet<String> {
    std::fs::read_dir(root)
        .expect("folder of the repository")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|name| !matches!(name.as_str(), "target" | ".git" | "tables") && !name.starts_with(".venv"))
        .collect()
}

/// `token` as a repository path, if it is one: a path (with a `/`) under an entry of the
/// repository's root or of the document's folder.
fn repository_path(token: &str, top: &BTreeSet<String>) -> Option<String> {
    let token = token.trim_matches(|c: char| "\"'(),;:[]{}".contains(c)).trim_end_matches('.');
    let first = token.split('/').next()?;
    let is_path = token.contains('/')
        && top.contains(first)
        && !token.contains("...")
        && !token.contains(['<', '>', '$', '~', '{', '|', '=']);
    is_path.then(|| token.to_string())
}

/// The `--flags` and the subcommands of a command.
type Options = (BTreeSet<String>, BTreeSet<String>);

/// The options and subcommands of `kabe <path> --help`, asked once each.
struct Help {
    asked: HashMap<Vec<String>, Option<Options>>,
}

impl Help {
    fn new() -> Help {
        Help { asked: HashMap::new() }
    }

    /// `(flags, subcommands)` of the command `path`, or None when kabe has no such command.
    fn of(&mut self, path: &[String]) -> Option<&Options> {
        self.asked
            .entry(path.to_vec())
            .or_insert_with(|| {
                let out = Command::new(env!("CARGO_BIN_EXE_kabe")).args(path).arg("--help").output().expect("run kabe");
                out.status.success().then(|| parse_help(&String::from_utf8_lossy(&out.stdout)))
            })
            .as_ref()
    }
}

/// The `--flags` (with their visible aliases) and subcommand names of a clap help text.
fn parse_help(text: &str) -> Options {
    let long_flags = |s: &str| -> Vec<String> {
        s.split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']')
            .filter(|t| t.starts_with("--") && t.len() > 2)
            .map(|t| t.trim_end_matches(|c: char| !c.is_alphanumeric()).to_string())
            .collect()
    };
    let (mut flags, mut commands) = (BTreeSet::new(), BTreeSet::new());
    let mut in_commands = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if line.ends_with(':') && !line.starts_with(' ') {
            in_commands = line == "Commands:";
            continue;
        }
        if in_commands && line.starts_with("  ") && !trimmed.is_empty() {
            commands.extend(trimmed.split_whitespace().next().map(String::from));
        }
        if trimmed.starts_with('-') {
            let spec = trimmed.split("  ").next().unwrap_or("");
            flags.extend(long_flags(spec));
        }
        for marker in ["[aliases: ", "[alias: "] {
            if let Some(at) = line.find(marker) {
                flags.extend(long_flags(&line[at + marker.len()..]));
            }
        }
    }
    (flags, commands)
}

/// The arguments of `line` to kabe, if it runs kabe: `kabe ARGS`, `$ kabe ARGS` or
/// `cargo run [--release] [--bin kabe] -- ARGS`, up to a pipe, redirection or `&&`.
fn kabe_arguments(line: &str) -> Option<Vec<String>> {
    let line = line.trim().trim_start_matches("$ ");
    // Up to the first shell operator outside `[...]` (in a synopsis `[a | b]` is a choice).
    let mut depth = 0;
    let mut end = line.len();
    for (at, c) in line.char_indices() {
        depth += match c {
            '[' => 1,
            ']' => -1,
            _ => 0,
        };
        let operators = [" | ", " > ", " >> ", " 2>", " < ", " && ", " ; ", " #"];
        if depth <= 0 && operators.iter().any(|op| line[at..].starts_with(op)) {
            end = at;
            break;
        }
    }
    let mut tokens: Vec<&str> = line[..end].split_whitespace().collect();
    // Environment assignments before the command.
    while tokens.first().is_some_and(|t| {
        t.split_once('=').is_some_and(|(name, _)| name.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
    }) {
        tokens.remove(0);
    }
    match tokens.as_slice() {
        ["kabe", rest @ ..] => Some(rest.iter().map(|s| s.to_string()).collect()),
        ["cargo", "run", rest @ ..] => {
            let dashes = rest.iter().position(|t| *t == "--")?;
            let options = &rest[..dashes];
            let other_package = options
                .windows(2)
                .any(|w| matches!(w[0], "-p" | "--package" | "--bin") && w[1] != "kabe" || w[0] == "--manifest-path")
                || options.iter().any(|t| t.starts_with("--example"));
            (!other_package).then(|| rest[dashes + 1..].iter().map(|s| s.to_string()).collect())
        }
        _ => None,
    }
}

/// Whether a fenced block's language is a shell's, whose lines are commands (in another
/// block, such as a transcript with the program's output, only a line after `$ ` is one).
fn shell(lang: &str) -> bool {
    matches!(lang, "sh" | "bash" | "shell" | "console")
}

/// The command lines of a document: lines of shell blocks and `$ ` lines of other fenced
/// blocks (an indented line opening with `[` or `-`, or one after a trailing `\`,
/// continues the line above), and code spans.
fn command_lines(parts: &Parts) -> Vec<String> {
    let mut lines = Vec::new();
    for (lang, block) in &parts.blocks {
        let mut current: Option<String> = None;
        for line in block {
            let continues = current.as_ref().is_some_and(|c| c.ends_with('\\'))
                || (line.starts_with(' ') && line.trim_start().starts_with(['[', '-']));
            if let (Some(c), true) = (&mut current, continues) {
                c.truncate(c.trim_end_matches('\\').len());
                c.push(' ');
                c.push_str(line.trim());
                continue;
            }
            lines.extend(current.take());
            if shell(lang) || line.trim_start().starts_with("$ ") {
                current = Some(line.trim().to_string());
            }
        }
        lines.extend(current);
    }
    lines.extend(parts.spans.iter().cloned());
    lines
}

/// What a document names that is not there, and how many paths and commands it checked.
fn problems(root: &Path, doc: &str, text: &str, help: &mut Help) -> (Vec<String>, usize, usize) {
    let folder = Path::new(doc).parent().unwrap_or(Path::new(""));
    // A path is the repository's (`generator/src/build.rs`) or the document folder's (in
    // capi/README.md, `src/lib.rs`).
    let mut top = top_level(root);
    top.extend(top_level(&root.join(folder)));
    let parts = parts(text);
    let mut found = Vec::new();
    let (mut paths, mut commands) = (0, 0);

    for link in &parts.links {
        let target = link.split('#').next().unwrap_or("");
        if target.is_empty() || link.contains("://") || link.starts_with("mailto:") {
            continue;
        }
        paths += 1;
        let base = if target.starts_with('/') { root.to_path_buf() } else { root.join(folder) };
        if !exists(&base, target) {
            found.push(format!("{doc}: link ({link}): no such file"));
        }
    }
    let shell_tokens = parts.blocks.iter().filter(|(lang, _)| shell(lang)).flat_map(|(_, lines)| {
        lines.iter().flat_map(|l| l.split(" #").next().unwrap_or("").split_whitespace().map(String::from))
    });
    let span_tokens = parts.spans.iter().flat_map(|s| s.split_whitespace().map(String::from));
    let mut named = BTreeSet::new();
    for token in shell_tokens.chain(span_tokens) {
        if let Some(path) = repository_path(&token, &top) {
            named.insert(path);
        }
    }
    for path in named {
        paths += 1;
        if !exists(root, &path) && !exists(&root.join(folder), &path) {
            found.push(format!("{doc}: `{path}`: no such file"));
        }
    }

    for line in command_lines(&parts) {
        let Some(args) = kabe_arguments(&line) else { continue };
        let mut command: Vec<String> = Vec::new();
        let mut rest = args.as_slice();
        // The subcommand (and any subcommand of it); a placeholder such as COMMAND is not one.
        while let Some(word) = rest.first() {
            let is_word = word.starts_with(|c: char| c.is_ascii_lowercase())
                && word.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
            let nested = help.of(&command).is_some_and(|(_, subs)| subs.contains(word.as_str()));
            if !is_word || (!command.is_empty() && !nested) {
                break;
            }
            command.push(word.clone());
            if help.of(&command).is_none() {
                found.push(format!("{doc}: `kabe {}`: no such subcommand ({line})", command.join(" ")));
                break;
            }
            rest = &rest[1..];
        }
        if !command.is_empty() && help.of(&command).is_none() {
            continue;
        }
        commands += 1;
        let Some((flags, _)) = help.of(&command).cloned() else { continue };
        for arg in rest {
            let arg = arg.trim_start_matches(['[', '(', '|']);
            let Some(name) = arg.strip_prefix("--") else { continue };
            let name: String = name.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
            if !name.is_empty() && !flags.contains(&format!("--{name}")) {
                found.push(format!("{doc}: `kabe {} --{name}`: no such option ({line})", command.join(" ")));
            }
        }
    }
    (found, paths, commands)
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_path_and_command_the_docs_name_exists() {
    let root = root();
    let mut help = Help::new();
    let (mut all, mut paths, mut commands) = (Vec::new(), 0, 0);
    let docs = documents(&root);
    assert!(docs.len() >= 10, "{docs:?}");
    for doc in &docs {
        let text = std::fs::read_to_string(root.join(doc)).expect("read doc");
        let (found, p, c) = problems(&root, doc, &text, &mut help);
        all.extend(found);
        paths += p;
        commands += c;
    }
    assert!(all.is_empty(), "the docs name what is not there:\n{}", all.join("\n"));
    // The extractor found what the docs are full of (a parser that finds nothing passes).
    assert!(paths > 80 && commands > 40, "{paths} paths and {commands} commands checked");
}

#[test]
fn a_wrong_path_link_subcommand_or_option_is_found() {
    let sample = "See `generator/src/no_such_file.rs`, `scripts/test.sh`, `data/perft/*.perft`,
`data/perft/*.nothing`, `target/release/kabe`, `https://example.invalid/a/b` and
[the format](format.md), [gone](gone.md), [up](../README.md#set-up), [web](https://x.invalid/y).
`kabe study --nodes 5 --bogus` and `kabe probe --json`, `kabe` alone, `kabe <COMMAND>`.

```sh
kabe analyze data/games/international.pdn --no-such-flag   # --not-checked in a comment
kabe analyse data/games/international.pdn
cargo run --release -- probe --jsn FEN
cargo run --release -p kabe-generator --example time_pair -- tables --anything
kabe generate --variant russian --pieces 4 | tail -n 1
kabe study FEN [--variant V] [--json | --jsonn]
           [--nodes N] [--wrong-continued]
bash scripts/no-such-script.sh
```

```
$ kabe studdy FEN
kabe tables in target/bench-tables (output, not a command)
```
";
    let mut help = Help::new();
    let (found, _, commands) = problems(&root(), "docs/sample.md", sample, &mut help);
    let expect = [
        "docs/sample.md: link (gone.md): no such file",
        "docs/sample.md: `generator/src/no_such_file.rs`: no such file",
        "docs/sample.md: `data/perft/*.nothing`: no such file",
        "docs/sample.md: `scripts/no-such-script.sh`: no such file",
        "docs/sample.md: `kabe analyze --no-such-flag`: no such option",
        "docs/sample.md: `kabe analyse`: no such subcommand",
        "docs/sample.md: `kabe probe --jsn`: no such option",
        "docs/sample.md: `kabe study --wrong-continued`: no such option",
        "docs/sample.md: `kabe study --jsonn`: no such option",
        "docs/sample.md: `kabe study --bogus`: no such option",
        "docs/sample.md: `kabe studdy`: no such subcommand",
    ];
    for e in expect {
        assert_eq!(
            found.iter().filter(|f| f.starts_with(e)).count(),
            1,
            "{e} not found once in:\n{}",
            found.join("\n")
        );
    }
    assert_eq!(found.len(), expect.len(), "{}", found.join("\n"));
    assert!(commands >= 7, "{commands}");
}

#[test]
fn help_text_gives_flags_aliases_and_subcommands() {
    let text = "Usage: kabe <COMMAND>\n\nCommands:\n  perft  Count\n  check-rules  Compare\n\nOptions:\n  -v, --variant <VARIANT>  Variant (see --not-a-flag)\n      --wolf <WOLF>\n          Only --this-neither\n      --tables <DIR>  Tables [aliases: --dir, --folder]\n  -h, --help  Print help\n";
    let (flags, commands) = parse_help(text);
    assert_eq!(flags, ["--variant", "--wolf", "--tables", "--dir", "--folder", "--help"].map(String::from).into());
    assert_eq!(commands, ["perft", "check-rules"].map(String::from).into());
}

#[test]
fn wildcards_match_within_one_component() {
    assert!(wildcard("*.perft", "english.perft"));
    assert!(wildcard("a*b*c", "aXbYc"));
    assert!(!wildcard("*.perft", "english.perf"));
    assert!(exists(&root(), "data/perft/*.perft"));
    assert!(!exists(&root(), "data/*/no-such-*.perft"));
}
