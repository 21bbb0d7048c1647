//! kabe-generator: retrograde analysis of draughts endgames (see issue 4; the rules
//! core it builds on lives in `kabe-probe`).
