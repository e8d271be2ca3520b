import Foundation
import SwitchyardCLI

let code = await Root.main(Array(CommandLine.arguments.dropFirst()))
exit(code)
