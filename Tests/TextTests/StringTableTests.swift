import Foundation
import Testing
@testable import Text

@Suite struct StringTableTests {
    @Test func tablesHoldTheDemoLabels() {
        let en = StringTable(.english), zh = StringTable(.simplifiedChinese)
        #expect([en[.original], en[.vivid], en[.useSystemSetting], en[.followingSystem]]
                == ["Original", "Vivid", "Use System Setting", "Following System"])
        #expect([zh[.original], zh[.vivid], zh[.useSystemSetting], zh[.followingSystem]]
                == ["原版", "鲜明", "使用系统设置", "跟随系统"])
        #expect(en[.followSystemAppearanceLabel] == "Follow System Appearance")
        // While a source drives the mode the button names it after the dot.
        #expect([en[.followingSystemVia], en[.sourceDesktop], en[.sourceLightSensor], en[.sourceSchedule]]
                == ["Following System · {source}", "desktop", "light sensor", "schedule"])
        #expect([zh[.followingSystemVia], zh[.sourceDesktop], zh[.sourceLightSensor], zh[.sourceSchedule]]
                == ["跟随系统·{source}", "桌面", "光线传感器", "定时"])
        for lang in Language.allCases {
            let t = StringTable(lang)
            // The plain label, a middle dot (spaced in English; Chinese sets it without spaces), the source.
            #expect(t[.followingSystemVia].hasPrefix(t[.followingSystem]) && t[.followingSystemVia].contains("·"), "\(lang)")
            #expect(t[.followingSystemVia].components(separatedBy: "{source}").count == 2, "\(lang): one placeholder")
        }
        // Every key has a non-empty entry in every language.
        for lang in Language.allCases {
            for key in StringKey.allCases { #expect(!StringTable(lang)[key].isEmpty, "\(lang) \(key)") }
        }
    }

    @Test func localeNames() {
        for name in ["zh_CN.UTF-8", "zh_CN", "zh_SG.UTF-8", "zh_Hans", "zh-Hans", "zh_CN.GB18030@pinyin", "ZH_cn.utf8"] {
            #expect(Language.fromLocale(name) == .simplifiedChinese, "\(name)")
        }
        for name in ["en_US.UTF-8", "C", "POSIX", "C.UTF-8", "zh_TW.UTF-8", "zh_HK", "zh", "de_DE.UTF-8", "", "ja_JP"] {
            #expect(Language.fromLocale(name) == .english, "\(name)")
        }
    }

    @Test func environmentPrecedenceIsLcAllThenLcMessagesThenLang() {
        #expect(Language.fromEnvironment([:]) == .english)
        #expect(Language.fromEnvironment(["LANG": "zh_CN.UTF-8"]) == .simplifiedChinese)
        #expect(Language.fromEnvironment(["LANG": "zh_CN.UTF-8", "LC_MESSAGES": "en_US.UTF-8"]) == .english)
        #expect(Language.fromEnvironment(["LANG": "en_US.UTF-8", "LC_MESSAGES": "zh_SG.UTF-8"]) == .simplifiedChinese)
        #expect(Language.fromEnvironment(["LC_ALL": "en_GB.UTF-8", "LC_MESSAGES": "zh_CN.UTF-8"]) == .english)
        #expect(Language.fromEnvironment(["LC_ALL": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"]) == .simplifiedChinese)
        // Empty values count as unset (POSIX).
        #expect(Language.fromEnvironment(["LC_ALL": "", "LANG": "zh_CN.UTF-8"]) == .simplifiedChinese)
        // LC_CTYPE does not choose the messages' language.
        #expect(Language.fromEnvironment(["LC_CTYPE": "zh_CN.UTF-8"]) == .english)
    }

    @Test func explicitCodeWinsOverEnvironment() throws {
        #expect(try Language.resolve(explicit: "en", environment: ["LANG": "zh_CN.UTF-8"]) == .english)
        #expect(try Language.resolve(explicit: nil, environment: ["LANG": "zh_CN.UTF-8"]) == .simplifiedChinese)
        #expect(throws: Language.UnknownCode(code: "xx")) {
            try Language.resolve(explicit: "xx", environment: ["LANG": "zh_CN.UTF-8"])
        }
    }

    @Test func explicitCodes() throws {
        #expect(try Language(code: "en") == .english)
        #expect(try Language(code: "zh-Hans") == .simplifiedChinese)
        #expect(try Language(code: "zh_CN") == .simplifiedChinese)
        #expect(throws: Language.UnknownCode(code: "fr")) { try Language(code: "fr") }
        do {
            _ = try Language(code: "zh-Hant")
            Issue.record("zh-Hant has no table and must be refused")
        } catch let e as Language.UnknownCode {
            #expect(e.description.contains("zh-Hant") && e.description.contains("en, zh-Hans"))
        }
    }
}
