import Core
import Foundation
import ArgumentParser
import Graphics

trace("main")
// --gl and --gl-device choose the OpenGL backend before it is opened (they go to MOLSHOT_GL and
// MOLSHOT_GL_DEVICE, which render processes and thumbnail parts inherit).
let arguments = Molshot.takeGLOptions(Array(CommandLine.arguments.dropFirst()))
// What the command needs of the process (its heap, Mesa opened early, how it ends): declared by
// the command, set up by ProcessTuning.
let needs = ProcessTuning.needs(of: arguments)
ProcessTuning.begin(needs)
// A first word that names no command (`rendr`): said so, with the nearest, rather than
// ArgumentParser's complaint about the options after it.
if let first = arguments.first, !first.hasPrefix("-"), first != "help" {
    let names = Molshot.configuration.subcommands.filter { $0.configuration.shouldDisplay }.compactMap { $0.configuration.commandName }
    if !Molshot.configuration.subcommands.contains(where: { $0.configuration.commandName == first }) {
        let message = "molshot: error: '\(Excerpt.of(first, length: 40))' is not a command\(NearMiss.hint(for: first, among: names)); "
            + "the commands are \(names.joined(separator: ", ")) (molshot --help says what each does)\n"
        FileHandle.standardError.write(Data(message.utf8))
        fflush(nil)
        _exit(1)
    }
}
do {
    var command = try Molshot.parseAsRoot(arguments)
    trace("parsed")
    try command.run()
} catch {
    // ArgumentParser's exit, but by _exit: exit handlers run while OSMesa may still be loading
    // on its thread crashed the process now and then (1 start in 10 with a missing --db).
    // One rule for every command: 1 for the user's input (ArgumentParser's usage errors, 64,
    // included), 2 for the machine.
    let parsed = Molshot.exitCode(for: error)
    let code = parsed == .validationFailure ? ExitCode(1) : parsed
    let message = CLIFailure.usageMessage(Molshot.fullMessage(for: error), code: code)
    if !message.isEmpty { FileHandle(fileDescriptor: code == .success ? 1 : 2).write(Data((message + "\n").utf8)) }
    fflush(nil)
    _exit(code.rawValue)
}
ProcessTuning.end(needs)
