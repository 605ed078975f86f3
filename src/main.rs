fn main() { println!("{}", execscope::version()); }
