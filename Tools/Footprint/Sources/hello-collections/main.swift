#if canImport(Glibc)
import Glibc
#endif

// The hello world that keeps values of its own types in the standard
// library's collections, as a program past a hello world does (and as the
// library does): an Array, a Dictionary and a Set. The metadata of their
// generic storage classes for those types is made at run time, at first use,
// by the Swift runtime (metadata instantiation, with its demangler), which
// the hello world never runs. measure.sh reads its RSS beside the hello
// world's: that part of what the library adds is any such program's.
struct Key: Hashable { var index: Int }
struct Reading: Hashable { var name: String; var value: Int }
var readings: [Reading] = []
var byKey: [Key: Reading] = [:]
var keys: Set<Key> = []
for (index, argument) in CommandLine.arguments.enumerated() {
    let reading = Reading(name: argument, value: index)
    readings.append(reading)
    byKey[Key(index: index)] = reading
    keys.insert(Key(index: index))
}
guard readings.count == byKey.count, keys.count == readings.count else { exit(1) }
print("hello")
if CommandLine.arguments.count > 1 {
    fflush(nil)
    while true { pause() }
}
