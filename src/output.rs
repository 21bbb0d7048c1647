//! How commands show their work: progress bars and sizes.

use indicatif::ProgressStyle;

/// A progress bar style from `template`, the default bar where the template is bad.
pub fn bar_style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()).progress_chars("=> ")
}

/// `bytes` as whole mebibytes, rounded up, in the form `--memory` reads (`512M`).
pub fn mebibytes(bytes: u64) -> String {
    format!("{}M", bytes.div_ceil(1 << 20))
}

/// `1, 4, 9`: the first ten numbers, then how many more.
pub fn some_of(numbers: &[usize]) -> String {
    let mut shown: Vec<String> = numbers.iter().take(10).map(|n| n.to_string()).collect();
    if numbers.len() > 10 {
        shown.push(format!("and {} more", numbers.len() - 10));
    }
    shown.join(", ")
}
