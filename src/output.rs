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
