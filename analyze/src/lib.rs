//! kabe-analyze: PDN reading, game replay and annotation (see issue 7; the rules core it
//! builds on lives in `kabe-probe`).
