import Core
import Foundation
import Graphics

trace("main")
// --gl and --gl-device choose the OpenGL backend before it is opened (they go to MOLSHOT_GL and
// MOLSHOT_GL_DEVICE, which render processes and thumbnail parts inherit).
let arguments = Molshot.takeGLOptions(Array(CommandLine.arguments.dropFirst()))
// What the command needs of the process (its heap, Mesa opened early, how it ends): declared by
// the command, set up by ProcessTuning.
let needs = ProcessTuning.needs(of: arguments)
ProcessTuning.begin(needs)
do {
    var command = try Molshot.parseAsRoot(arguments)
    trace("parsed")
    try command.run()
} catch {
    // ArgumentParser's exit, but by _exit: exit handlers run while OSMesa may still be loading
    // on its thread crashed the process now and then (1 start in 10 with a missing --db).
    let code = Molshot.exitCode(for: error)
    let message = CLIFailure.usageMessage(Molshot.fullMessage(for: error), code: code)
    if !message.isEmpty { FileHandle(fileDescriptor: code == .success ? 1 : 2).write(Data((message + "\n").utf8)) }
    fflush(nil)
    _exit(code.rawValue)
}
ProcessTuning.end(needs)
