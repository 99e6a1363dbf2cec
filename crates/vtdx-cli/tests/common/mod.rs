//! Helpers shared by the CLI test binaries: a scratch directory and a way to run
//! the built `vtdx` binary.

#![allow(dead_code)] // each test binary uses its own subset

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A scratch directory, removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    /// A fresh directory named after the test binary, the process and `tag`.
    pub fn new(tag: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("vtdx-cli-{}-{}-{tag}", module_path!().replace("::", "-"), std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
    pub fn file(&self, name: &str, content: &[u8]) -> &TempDir {
        std::fs::write(self.0.join(name), content).unwrap();
        self
    }
    pub fn read(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.0.join(name)).unwrap()
    }
    pub fn path(&self) -> &Path {
        &self.0
    }
    /// The names in the directory, sorted (temporary files included).
    pub fn listing(&self) -> Vec<String> {
        let mut v: Vec<String> =
            std::fs::read_dir(&self.0).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `vtdx ARGS` in `dir`, with `stdin` piped in (or none).
pub fn run_vtdx(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_vtdx"));
    cmd.args(args).current_dir(dir).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() });
    let mut child = cmd.spawn().expect("run vtdx");
    if let Some(input) = stdin {
        let mut w = child.stdin.take().unwrap();
        let _ = w.write_all(input); // the child may exit before reading all of it
    }
    child.wait_with_output().unwrap()
}

pub fn code(o: &Output) -> i32 {
    o.status.code().expect("exited normally")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}
