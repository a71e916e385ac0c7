"""Turning a file's bytes into text: BOMs, declared charsets, and a guess for legacy files.

The order matters and is deliberate. An encoding the person names wins; a byte order mark is
certain; strict UTF-8 almost never decodes text written in another encoding; after that the
Japanese and Chinese legacy encodings are tried on a sample and the decoding that reads most
like real text wins (kana for Japanese, frequent hanzi and CJK punctuation for Chinese).
Then Windows-1252 (and Latin-1, which it contains), when its decoding reads as Western
European text (``western``). charset-normalizer is trusted last, only for non-Latin alphabets
(Cyrillic, Greek, Hebrew, Arabic, Thai), whose encodings differ enough to be told apart; the
Latin-script ones (Central European, Baltic, Turkish) differ only in a few letters, and a
file in one of them is refused with a hint to name the encoding, rather than garbled. Shift_JIS
is always read as CP932, the superset that Windows (and so most Japanese files) really use.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from dataclasses import dataclass

from charset_normalizer import from_bytes

from honyaku.errors import BookFormatError, ConfigError
from honyaku.formats import western

SAMPLE_BYTES = 64 * 1024
"""How much of a file the CJK guess looks at before decoding all of it."""

MIN_CJK_SCORE = 0.15
"""Below this share of telling characters, a CJK decoding is taken for gibberish."""

MAX_CHAOS = 0.2
"""The most mess charset-normalizer's answer may show before it is refused."""

MIN_NON_LATIN_SHARE = 0.9
"""The share of a decoding's non-ASCII letters that must be of another alphabet than Latin
for charset-normalizer's guess to be taken."""

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)

_CJK_CANDIDATES = ("cp932", "euc_jp", "euc_jis_2004", "shift_jis_2004", "gb18030", "big5hkscs")

_LABELS = {
    "shift_jis": "cp932",
    "shift-jis": "cp932",
    "sjis": "cp932",
    "x-sjis": "cp932",
    "ms_kanji": "cp932",
    "windows-31j": "cp932",
    "cp932": "cp932",
    "euc-jp": "euc_jp",
    "x-euc-jp": "euc_jp",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "x-gbk": "gb18030",
    "gb18030": "gb18030",
    "big5": "big5hkscs",
    "big5-hkscs": "big5hkscs",
    "iso-8859-1": "cp1252",
    "latin1": "cp1252",
    "us-ascii": "utf-8",
}

_NAMES = {
    "cp932": "Shift_JIS (CP932)",
    "euc_jp": "EUC-JP",
    "euc_jis_2004": "EUC-JIS-2004",
    "shift_jis_2004": "Shift_JIS-2004",
    "gb18030": "GB18030",
    "big5hkscs": "Big5",
    "utf-8": "UTF-8",
    "cp1252": "Windows-1252",
}

# Frequent hanzi/kanji in simplified and traditional forms: in a right decoding they are a
# large share of the ideographs; in a wrong one they turn up only by chance.
_COMMON_HAN = (
    "的一是不了人我在有他这這个個们們中来來上大为為和国國地到以说說时時要就出会會可也你对對"
    "生能而子那得于於着著下自之年过過发發后後作里裡用道行所然家种種事成方多经經么麼去法学學"
    "如都同现現当當没沒动動面起看定天分还還进進好小部其些主样樣理心她本前开開但因只从從想实"
    "實日军軍者意无無力它与與长長把机機十民第公此已工使情明性知全三又关關点點正业業外将將两"
    "兩高间間由问問很最重并並物手应應战戰向头頭文体體政美相见見被利什二等产產或新己制身果加"
    "西月话話合回特代内信表化老给給世位次度门門任常先海通教儿兒原东東声聲提立及比员員解水名"
    "真论論处處走义義各入几幾口认認条條平系气氣题題活更别別打女变變四神总總何电電数數安少报"
    "報才结結反受目太量再感建务務做接必场場件计計管期市直资資命山金指许許统統区區保至队隊形"
    "社便空决決治展马馬科司五基眼书書非则則听聽白却界达達光放强強即像难難且权權思王象完设設"
    "式色路记記南品住告类類求据據程北边邊死张張该該交规規万萬取拉格望觉覺术術领領共确確传傳"
    "师師观觀清今切院让讓识識候带帶导導争爭运運笑飞飛风風步改收根造言联聯持组組每车車亲親极"
    "極林服快办辦议議往元士证證近失转轉夫令准準布始怎呢存未远遠叫台单單影具爱愛流备備连連调"
    "調深商算质質团團集百需价價花华華城石级級整府离離况況请請技际際约約示复復病息究线線似官"
    "火断斷精满滿支视視消越器容照须須九增研写寫称稱八功吗嗎包片史委乎查轻輕易早曾除找装裝"
    "显顯吧图圖念六引历歷首医醫局突专專费費号號尽盡另周较較注语語仅僅考落青随隨选選列武红紅"
    "响響虽雖推势勢参參希古众眾房半节節土投某案黑维維划劃敌敵致律足态態护護七兴興派孩验驗责"
    "責营營星够夠章音跟志底站严嚴例防族供效续續施留讲講型料终終答紧緊黄黃绝絕奇察母京段依批"
    "群项項故按河米围圍江害双雙境客纪紀举舉杀殺攻父友诉訴止细細愿願千值仍男钱錢破网網热熱助"
    "倒育属屬坐帝限船脸臉职職速刻乐樂否刚剛毛状狀率甚独獨般普怕苦创創假久错錯承印晚兰蘭试試"
    "拿脑腦预預谁誰益阳陽若哪微继繼送急血惊驚伤傷素药藥适適波夜省初喜卫衛源食险險待述陆陸习"
    "習置居劳勞财財环環排福纳納欢歡雷警获獲模充负負云雲停木游遊龙龍树樹疑层層冷冲衝射略范範"
    "竟句室异異激汉漢村策演简簡罪判担擔州静靜退既衣您宗积積余餘痛检檢差富灵靈协協角占配征修"
    "皮挥揮胜勝降审審沉坚堅善妈媽读讀啊超免压壓银銀买買皇养養怀懷执執副乱亂抗犯追帮幫宣佛岁"
    "歲优優怪香田铁鐵左右份穿艺藝背阵陣草脚腳概恶惡块塊顿頓敢守酒岛島托央户戶烈洋哥索靠评評"
    "版宝寶座释釋景顾顧弟登货貨互付慢换換闻聞危忙核暗姐介坏壞讨討丽麗良序升监監临臨亮露永呼"
    "味野架域沙掉括鱼魚杂雜误誤吉减減编編楚肯测測败敗屋跑梦夢散温溫困剑劍渐漸封救贵貴枪槍缺"
    "楼樓县縣尚毫移娘朋画畫班智亦耳恩短掌恐遗遺固席松秘谢謝遇康虑慮幸均钟鐘诗詩藏赶趕剧劇票"
    "忽巨旧舊端探湖录錄叶葉春乡鄉附吸予礼禮港雨呀板庭妇婦归歸睛饭飯额額含顺順输輸摇搖招婚脱"
    "脫补補谓謂毒油旅泽澤材灭滅逐莫笔筆亡鲜鮮词詞圣聖择擇寻尋睡博烟煙授诺諾岸唐卖賣载載健堂"
    "旁宫宮喝借君禁阴陰园園谋謀避抓荣榮姑孙孫逃牙束跳顶頂玉镇鎮雪午练練迫爷爺篇肉嘴馆館遍凡"
)
_COMMON = re.compile(
    "[" + "".join(sorted(set(_COMMON_HAN))) + "\u3001\u3002\u300c-\u300f\uff01\uff08\uff09"
    "\uff0c\uff1a\uff1b\uff1f\u3041-\u3096\u30a1-\u30fa\u30fc]"
)
_SUSPECT = re.compile(
    "[\uff61-\uff9f\ue000-\uf8ff\uac00-\ud7af\u3400-\u4dbf\x00-\x08\x0e-\x1f\x7f-\x9f"
    "\U00020000-\U0010ffff]"
)
_ISO_2022_JP_ESCAPE = re.compile(rb"\x1b\$[@B]|\x1b\$\(Q")
_NON_ASCII = re.compile("[^\x00-\x7f]")
_DECLARED = re.compile(
    rb"""<\?xml[^>]{0,200}?encoding\s*=\s*["']([A-Za-z0-9._:\-]{1,40})["']"""
    rb"""|<meta[^>]{0,300}?charset\s*=\s*["']?([A-Za-z0-9._:\-]{1,40})""",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class _Guess:
    codec: str
    score: float


def decode_text(raw: bytes, source: str, *, encoding: str | None = None) -> str:
    """The text of a plain-text file; raises ``BookFormatError`` if it is not text.

    ``encoding`` names the codec to use instead of telling it from the bytes.
    """
    if not raw.strip():
        raise BookFormatError(f"{source}: the file is empty")
    if encoding:
        return _decode_as(raw, encoding, source)
    bom_codec = _codec_from_bom(raw)
    if bom_codec:
        return _decode_all(raw, bom_codec, source)
    _refuse_binary(raw, source)
    if _ISO_2022_JP_ESCAPE.search(raw[:SAMPLE_BYTES]):
        return _decode_all(raw, "iso2022_jp_2004", source)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return _decode_legacy(raw, source)


def decode_markup(raw: bytes, source: str, *, encoding: str | None = None) -> str:
    """The text of an XML or HTML file: ``encoding`` if given, else the BOM, then its
    declared charset, then a guess."""
    if encoding:
        return _decode_as(raw, encoding, source)
    bom_codec = _codec_from_bom(raw)
    if bom_codec:
        return _decode_all(raw, bom_codec, source)
    declared = _declared_codec(raw)
    for codec in (declared, "utf-8"):
        if codec:
            try:
                return raw.decode(codec)
            except UnicodeDecodeError:
                continue
    _refuse_binary(raw, source)
    return _decode_legacy(raw, source)


def _decode_as(raw: bytes, encoding: str, source: str) -> str:
    label = encoding.strip().lower()
    try:
        codec = _LABELS.get(label) or codecs.lookup(label).name
    except LookupError:
        raise ConfigError(
            f"unknown encoding {encoding!r}; give a codec name such as cp1252, shift_jis, "
            "gb18030 or big5"
        ) from None
    return _decode_all(raw, codec, source).removeprefix("\ufeff")


def _codec_from_bom(raw: bytes) -> str | None:
    for bom, codec in _BOMS:
        if raw.startswith(bom):
            return codec
    return None


def _declared_codec(raw: bytes) -> str | None:
    match = _DECLARED.search(raw[:2048])
    if not match:
        return None
    label = (match.group(1) or match.group(2)).decode("ascii").lower()
    if label in _LABELS:
        return _LABELS[label]
    try:
        return codecs.lookup(label).name
    except LookupError:
        return None


def _refuse_binary(raw: bytes, source: str) -> None:
    sample = raw[:SAMPLE_BYTES]
    controls = sum(sample.count(bytes([c])) for c in (*range(0, 8), *range(14, 26), 127))
    if b"\x00" in sample or controls > len(sample) // 100:
        raise BookFormatError(f"{source}: looks like binary data, not text or a book")


def _decode_legacy(raw: bytes, source: str) -> str:
    sample = raw[:SAMPLE_BYTES]
    for guess in _rank_cjk(sample):
        try:
            return raw.decode(guess.codec)
        except UnicodeDecodeError:
            continue
    try:
        text = raw.decode(western.CODEC)
        if western.reads_as_western(text[: len(sample)]):
            return text
    except UnicodeDecodeError:
        pass
    best = from_bytes(sample).best()
    if best is not None and best.chaos <= MAX_CHAOS:
        try:
            text = raw.decode(best.encoding)
            if _is_non_latin(text[: len(sample)]):
                return text
        except (UnicodeDecodeError, LookupError):
            pass
    hint = f"perhaps --encoding {best.encoding}" if best is not None else "e.g. --encoding cp1252"
    raise BookFormatError(
        f"{source}: cannot tell the text's encoding (it is not UTF-8, and does not read as "
        "Windows-1252, Shift_JIS, EUC-JP, GB18030 or Big5): save it as UTF-8",
        terminal_hint=f"or name its encoding with --encoding ({hint})",
    )


def _is_non_latin(text: str) -> bool:
    """Whether the non-ASCII letters of ``text`` are mostly of another alphabet than Latin."""
    letters = [char for char in text if char.isalpha() and not char.isascii()]
    latin = sum(1 for char in letters if unicodedata.name(char, "").startswith("LATIN"))
    return bool(letters) and len(letters) - latin >= len(letters) * MIN_NON_LATIN_SHARE


def _rank_cjk(sample: bytes) -> list[_Guess]:
    """CJK codecs that decode ``sample`` into plausible text, most plausible first."""
    guesses = []
    for codec in _CJK_CANDIDATES:
        try:
            text = codecs.getincrementaldecoder(codec)().decode(sample, final=False)
        except UnicodeDecodeError:
            continue
        score = _plausibility(text)
        if score >= MIN_CJK_SCORE:
            guesses.append(_Guess(codec, score))
    # Stable sort: on a near tie the earlier (Japanese first) candidate wins.
    return sorted(guesses, key=lambda g: -round(g.score, 2))


def _plausibility(text: str) -> float:
    non_ascii = len(_NON_ASCII.findall(text))
    if not non_ascii:
        return 0.0
    good = len(_COMMON.findall(text))
    bad = len(_SUSPECT.findall(text))
    return (good - 3 * bad) / non_ascii


def _decode_all(raw: bytes, codec: str, source: str) -> str:
    try:
        return raw.decode(codec)
    except UnicodeDecodeError as error:
        name = _NAMES.get(codec, codec)
        raise BookFormatError(
            f"{source}: bytes at offset {error.start} are not valid {name}"
        ) from None
