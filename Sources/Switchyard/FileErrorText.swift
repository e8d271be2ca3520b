import Foundation

/// File errors in plain words, for messages people read.
package enum FileErrorText {
    /// `no such file`, `permission denied`, `is a directory`…: the cause of a failed file operation without
    /// Foundation's `Error Domain=… Code=…` text or "The operation could not be completed".
    package static func plain(_ error: any Error) -> String {
        let ns = error as NSError
        var posix: Int32?
        if ns.domain == NSPOSIXErrorDomain {
            posix = Int32(ns.code)
        } else if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? any Error {
            let u = underlying as NSError
            if u.domain == NSPOSIXErrorDomain { posix = Int32(u.code) }
        }
        if let posix { return String(cString: strerror(posix)).lowercased() }
        if ns.domain == NSCocoaErrorDomain {
            switch ns.code {
            case NSFileReadNoSuchFileError, NSFileNoSuchFileError: return "no such file"
            case NSFileReadNoPermissionError, NSFileWriteNoPermissionError: return "permission denied"
            case NSFileReadInapplicableStringEncodingError: return "not UTF-8 text"
            case NSFileReadCorruptFileError: return "unreadable"
            case NSFileWriteOutOfSpaceError: return "no space left on the device"
            default: break
            }
        }
        return "\(error)"
    }
}
