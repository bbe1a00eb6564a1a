import ArgumentParser
import CMemory
import Core
import Library

struct Molshot: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "molshot",
        abstract: "Headless 3D molecule renderer.",
        version: MolshotVersion.current,
        subcommands: [Info.self, Render.self, ExportCommand.self, PathwayCommand.self, ServeRun.self, ThumbnailsCommand.self, ReplayCommand.self, LibraryCommand.self, Search.self, Fetch.self, MeasureParse.self, MeasureRender.self, MeasureSQL.self, MeasureLoad.self, MeasureLive.self]
    )

    /// The subcommands that draw (and so open OSMesa), by name.
    static let drawingCommands: Set<String> = ["render", "pathway", "serve", "thumbnails", "replay", "measure-render"]

    /// Every picture allocates and frees buffers of a few hundred kilobytes (readback, smoothing,
    /// PNG). glibc would map and unmap each one from the kernel, page faults and all (measured: a
    /// fifth of the time of a run of small molecules); kept in the heap they are reused.
    static func keepImageBuffersInTheHeap() { molshot_keep_buffers_in_heap() }

    /// Commands that draw touch a few image-sized buffers a picture (the GL framebuffer, the
    /// readback, the encoder's), and on these machines a 4 KB page fault costs about 2.5 us: a
    /// 2000 px map touched 130 MB, 20,900 faults, half its time. 192 MB of heap in 2 MB pages:
    /// 6,400 faults for the same map.
    /// Objects a drawing command leaves to the end of the process: a GL context takes milliseconds
    /// to take apart (llvmpipe's threads, its textures), and the process ends with `_exit` once
    /// everything is written (main.swift), where the kernel frees it all at once.
    static let keptUntilExit = Locked<[AnyObject]>([])

    static func keepUntilExit(_ object: AnyObject) { keptUntilExit.withLock { $0.append(object) } }

    static func drawInHugePages() { _ = molshot_heap_in_huge_pages(192 << 20) }
    /// The service runs for weeks: what a large request took goes back to the system after it.
    static func returnLargeBuffers() { molshot_return_large_buffers() }
}
