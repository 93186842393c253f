#if canImport(Glibc)
import Glibc
#endif

// The baseline: print a line; with an argument, then wait as the embedding program does.
print("hello")
if CommandLine.arguments.count > 1 {
    fflush(nil)
    while true { pause() }
}
