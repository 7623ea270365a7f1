fn main() {
    println!("cli todo");
}
