// An Order and Chaos bot in Rust, written from docs/protocol.md alone (issue 22): it speaks
// "arena 1" on stdin/stdout, flushes every line, plays a legal move seeded by ARENA_SEED,
// completes a five when it can as Order and avoids completing one as Chaos. Standard library
// only: `rustc -O main.rs -o main`.
use std::io::{self, BufRead, Write};

fn lines() -> Vec<[usize; 5]> {
    let mut out = Vec::new();
    for r in 0..6i32 {
        for c in 0..6i32 {
            for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                let (er, ec) = (r + 4 * dr, c + 4 * dc);
                if (0..6).contains(&er) && (0..6).contains(&ec) {
                    let mut line = [0usize; 5];
                    for (k, cell) in line.iter_mut().enumerate() {
                        let k = k as i32;
                        *cell = ((r + dr * k) * 6 + c + dc * k) as usize;
                    }
                    out.push(line);
                }
            }
        }
    }
    out
}

fn makes_five(board: &[u8], lines: &[[usize; 5]], cell: usize, mark: u8) -> bool {
    lines.iter().any(|line| {
        line.contains(&cell)
            && line.iter().all(|&i| if i == cell { true } else { board[i] == mark })
    })
}

struct Rng(u64);

impl Rng {
    fn next(&mut self, n: usize) -> usize {
        // xorshift64*: deterministic given ARENA_SEED
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

fn main() {
    let seed: u64 = std::env::var("ARENA_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    let mut rng = Rng(seed.wrapping_mul(2_654_435_761).max(1));
    let lines = lines();
    let stdin = io::stdin();
    let mut stdout = io::stdout();
    let mut role = String::from("order");
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.first().copied() {
            Some("arena") => {
                writeln!(stdout, "ready rust doc bot").unwrap();
                stdout.flush().unwrap();
            }
            Some("game") => role = words.get(1).unwrap_or(&"order").to_string(),
            Some("turn") if words.len() == 4 => {
                let board = words[1].as_bytes();
                let ms: u64 = words[3].parse().unwrap_or(1); // read on every turn
                eprintln!("turn with {ms} ms");
                let mut moves = Vec::new();
                for cell in 0..36 {
                    if board[cell] == b'.' {
                        moves.push((cell, b'X'));
                        moves.push((cell, b'O'));
                    }
                }
                let wins: Vec<_> =
                    moves.iter().copied().filter(|&(c, m)| makes_five(board, &lines, c, m)).collect();
                let safe: Vec<_> =
                    moves.iter().copied().filter(|&(c, m)| !makes_five(board, &lines, c, m)).collect();
                let pool = if role == "order" && !wins.is_empty() {
                    wins
                } else if role == "chaos" && !safe.is_empty() {
                    safe
                } else {
                    moves
                };
                let (cell, mark) = pool[rng.next(pool.len())];
                let column = (b'a' + (cell % 6) as u8) as char;
                writeln!(stdout, "{}{}{}", column, cell / 6 + 1, mark as char).unwrap();
                stdout.flush().unwrap();
            }
            Some("quit") => break,
            _ => {}
        }
    }
}
