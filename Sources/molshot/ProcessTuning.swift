import ArgumentParser
import CMemory
import Core
import Foundation
import Graphics

/// What a command needs of the process, declared by the command (`TunedCommand`) and set up in
/// one place (`ProcessTuning`) before its options are parsed: how the heap is kept, whether the
/// GL library is opened on a thread of its own meanwhile, and how the process ends.
struct ProcessNeeds {
    /// How the heap serves a command's buffers.
    enum Heap {
        /// glibc's defaults.
        case standard
        /// 192 MB of heap in 2 MB pages: a command that draws touches a few image-sized buffers
        /// a picture, and on these machines a 4 KB page fault costs about 2.5 us (a 2000 px map
        /// touched 130 MB, 20,900 faults, half its time; in 2 MB pages, 6,400 faults).
        case hugePages
        /// 2 MB pages only where the pictures are large (`ProcessTuning.hugePagesPay`), chosen by
        /// the command once its size is known.
        case hugePagesBySize
        /// A long-running service: buffers past 8 MB are mapped apart and returned when freed (kept
        /// in arenas, 12 renders of a 1.9M-atom upload had grown it by 2.8 GB); a frame's buffers
        /// under it are kept and reused (`molshot_return_large_buffers`).
        case returnLarge
    }

    var heap: Heap = .standard
    /// Opens OSMesa or EGL on a thread while the options are parsed and the input read (Mesa's
    /// LLVM takes tens of milliseconds to load); the first context waits for it.
    var preloadGL = false
    /// Draws: a thread is parked for reading before Mesa loads (no thread can start during the
    /// load), and the process ends with `_exit` once everything is written (tearing down Mesa's
    /// LLVM and llvmpipe's threads takes about 10 ms and leaves nothing the kernel does not free).
    var draws = false

    static let none = ProcessNeeds()
    /// A command that draws pictures of a size known at once.
    static let drawing = ProcessNeeds(heap: .hugePages, preloadGL: true, draws: true)
}

/// A command that says what it needs of the process.
protocol TunedCommand: ParsableCommand {
    static var processNeeds: ProcessNeeds { get }
}

extension Render: TunedCommand { static var processNeeds: ProcessNeeds { .drawing } }
extension ImagesCommand: TunedCommand { static var processNeeds: ProcessNeeds { .drawing } }
extension PathwayCommand: TunedCommand { static var processNeeds: ProcessNeeds { .drawing } }
extension ReplayCommand: TunedCommand { static var processNeeds: ProcessNeeds { .drawing } }
extension MovieCommand: TunedCommand { static var processNeeds: ProcessNeeds { .drawing } }
extension Doctor: TunedCommand { static var processNeeds: ProcessNeeds { .drawing } }
extension ServeRun: TunedCommand { static var processNeeds: ProcessNeeds { ProcessNeeds(heap: .returnLarge, preloadGL: true, draws: true) } }
// Thumbnails start their GL thread themselves, and only where a picture needs GL: most are
// ray-cast on the CPU (ThumbnailRun), where loading Mesa would be start-up spent for nothing.
extension ThumbnailsCommand: TunedCommand { static var processNeeds: ProcessNeeds { ProcessNeeds(heap: .hugePagesBySize, draws: true) } }
extension MeasureRender: TunedCommand { static var processNeeds: ProcessNeeds { ProcessNeeds(heap: .hugePagesBySize, preloadGL: true, draws: true) } }

/// Sets the process up as its command needs, and ends it as it needs.
enum ProcessTuning {
    /// The needs of the command `arguments` name (its first word), `.none` for the rest.
    static func needs(of arguments: [String]) -> ProcessNeeds {
        guard let name = arguments.first,
              let command = Molshot.configuration.subcommands.first(where: { $0._commandName == name }) as? TunedCommand.Type else {
            return .none
        }
        return command.processNeeds
    }

    /// Before the options are parsed.
    static func begin(_ needs: ProcessNeeds) {
        // Every picture allocates and frees buffers of a few hundred kilobytes (readback,
        // smoothing, PNG): kept in the heap they are reused instead of mapped and unmapped each
        // time (measured: a fifth of the time of a run of small molecules).
        molshot_keep_buffers_in_heap()
        switch needs.heap {
        case .standard, .hugePagesBySize: break
        case .hugePages: drawInHugePages()
        case .returnLarge: molshot_return_large_buffers()
        }
        if needs.draws { SpareThread.start() }
        if needs.preloadGL { OffscreenContexts.preload() }
    }

    /// After the command has run and written everything.
    static func end(_ needs: ProcessNeeds) {
        guard needs.draws else { return }
        trace("exit")
        fflush(nil)
        _exit(0)
    }

    static func drawInHugePages() { _ = molshot_heap_in_huge_pages(192 << 20) }

    /// Whether pictures of `pixels` pay for 2 MB pages: a 2 MB page is zeroed whole at its first
    /// touch, and small pictures' buffers (a 256 px thumbnail's are 256 KB) touch few of each
    /// one's 512 small pages. Measured on the corpus's 256 px thumbnails (seven runs alternating):
    /// median 0.85 s with the heap in 2 MB pages, 0.79 s without; a 2000 px picture gains from them.
    static func hugePagesPay(pixels: Int) -> Bool { pixels >= 1 << 20 }

    /// For `.hugePagesBySize` commands, once their pictures' size is known.
    static func choosePages(pixels: Int) { if hugePagesPay(pixels: pixels) { drawInHugePages() } }
}
