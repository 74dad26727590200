// The rules of Indonesian Remi in five languages, as the rules page shows them
// (static/js/rules.js): pictures are card lists shared by every language; a
// section's "figures" are captions, by picture. The text after `export default`
// is plain JSON, so that tests can read it without JavaScript.
export default {
  "pictures": {
    "sequence": {
      "cards": [
        "5S",
        "6S",
        "7S",
        "8S"
      ],
      "ok": true
    },
    "set": {
      "cards": [
        "AH",
        "AD",
        "AC"
      ],
      "ok": true
    },
    "bad_ten": {
      "cards": [
        "TC",
        "JC",
        "QC"
      ],
      "ok": false
    },
    "bad_ace": {
      "cards": [
        "AS",
        "2S",
        "3S"
      ],
      "ok": false
    }
  },
  "en": {
    "title": "Indonesian Remi",
    "intro": "Lay down sequences and sets and be the first to close. Everybody scores at the end of every deal: cards in melds count plus, the other cards minus.",
    "sections": [
      {
        "id": "deal",
        "title": "The deal",
        "text": [
          "One deck of 52 cards, no jokers, 2 to 4 players, 7 cards each. The rest is the stock; the discard pile starts empty. The dealer plays first.",
          "Card values: 2 to 10 are worth 5, jack, queen and king 10, the ace 15."
        ]
      },
      {
        "id": "melds",
        "title": "Sequences and sets",
        "text": [
          "A sequence is three or more cards of one suit in a row: number cards from 2 to 10, or jack-queen-king. The 10 does not join the jack, and an ace is never in a sequence.",
          "A set is three or four cards of the same rank. Aces may make a set.",
          "You may lay down a set only once you have a sequence on the table."
        ],
        "figures": {
          "sequence": "A sequence: 5, 6, 7 and 8 of spades",
          "set": "A set: three aces",
          "bad_ten": "Not a sequence: the 10 does not join the jack",
          "bad_ace": "Not a sequence: an ace is never in one"
        }
      },
      {
        "id": "turn",
        "title": "Your turn",
        "text": [
          "Draw the top card of the stock, or take one of the top three cards of the discard pile. A card taken from the pile goes down at once in a new meld with at least two cards from your hand; the cards above it come into your hand.",
          "Then lay down as many melds as you like and discard one card. Melds on the table never change: nothing is laid off."
        ]
      },
      {
        "id": "end",
        "title": "Closing",
        "text": [
          "When every card in your hand but one fits into melds, lay them all down and discard the last one: you close, and the deal is over.",
          "The deal also ends when the stock is empty and the player to move cannot take from the pile."
        ]
      },
      {
        "id": "scoring",
        "title": "Scoring",
        "text": [
          "Everyone scores. Every card in a meld counts plus, on the table or still in your hand; every other card counts minus.",
          "Sets count only for a player who has a sequence. Without one, the cards of a set are minus.",
          "The closer adds ten times the closing card's value: 50 for a number card, 100 for a face card, 150 for an ace.",
          "A game is 8 deals and the highest total wins. The lowest total deals next."
        ]
      }
    ]
  },
  "id": {
    "title": "Remi Indonesia",
    "intro": "Turunkan seri dan set, dan jadilah yang pertama menutup. Semua pemain dapat skor di akhir setiap ronde: kartu dalam kombinasi dihitung plus, kartu lainnya minus.",
    "sections": [
      {
        "id": "deal",
        "title": "Pembagian kartu",
        "text": [
          "Satu set 52 kartu, tanpa joker, 2 sampai 4 pemain, masing-masing 7 kartu. Sisanya menjadi tumpukan; tumpukan buangan mulai kosong. Pembagi kartu jalan duluan.",
          "Nilai kartu: 2 sampai 10 bernilai 5, Jack, Queen dan King 10, As 15."
        ]
      },
      {
        "id": "melds",
        "title": "Seri dan set",
        "text": [
          "Seri adalah tiga kartu atau lebih dengan bunga yang sama dan berurutan: kartu angka dari 2 sampai 10, atau Jack-Queen-King. Kartu 10 tidak menyambung ke Jack, dan As tidak pernah masuk seri.",
          "Set adalah tiga atau empat kartu dengan angka yang sama. As boleh menjadi set.",
          "Set baru boleh diturunkan kalau kamu sudah punya seri di meja."
        ],
        "figures": {
          "sequence": "Seri: 5, 6, 7 dan 8 sekop",
          "set": "Set: tiga As",
          "bad_ten": "Bukan seri: 10 tidak menyambung ke Jack",
          "bad_ace": "Bukan seri: As tidak pernah masuk seri"
        }
      },
      {
        "id": "turn",
        "title": "Giliranmu",
        "text": [
          "Ambil kartu teratas dari tumpukan, atau ambil salah satu dari tiga kartu teratas tumpukan buangan. Kartu dari buangan harus langsung diturunkan dalam kombinasi baru bersama paling sedikit dua kartu dari tanganmu; kartu-kartu di atasnya masuk ke tanganmu.",
          "Lalu turunkan kombinasi sebanyak yang kamu mau dan buang satu kartu. Kombinasi di meja tidak pernah berubah: tidak ada menempel kartu."
        ]
      },
      {
        "id": "end",
        "title": "Menutup",
        "text": [
          "Kalau semua kartu di tanganmu kecuali satu bisa masuk kombinasi, turunkan semuanya dan buang kartu terakhir: kamu menutup, dan ronde selesai.",
          "Ronde juga selesai kalau tumpukan sudah habis dan pemain yang mendapat giliran tidak bisa mengambil dari buangan."
        ]
      },
      {
        "id": "scoring",
        "title": "Skor",
        "text": [
          "Semua pemain dapat skor. Setiap kartu dalam kombinasi dihitung plus, baik di meja maupun masih di tangan; kartu lainnya dihitung minus.",
          "Set hanya dihitung untuk pemain yang punya seri. Tanpa seri, kartu set dihitung minus.",
          "Yang menutup mendapat tambahan sepuluh kali nilai kartu penutup: 50 untuk kartu angka, 100 untuk kartu gambar, 150 untuk As.",
          "Satu permainan 8 ronde, total tertinggi menang. Total terendah membagi kartu berikutnya."
        ]
      }
    ]
  },
  "fr": {
    "title": "Rami indonésien",
    "intro": "Posez des suites et des brelans, et soyez le premier à fermer. Tout le monde marque à la fin de chaque donne : les cartes en combinaison comptent en plus, les autres en moins.",
    "sections": [
      {
        "id": "deal",
        "title": "La donne",
        "text": [
          "Un jeu de 52 cartes, sans joker, de 2 à 4 joueurs, 7 cartes chacun. Le reste forme la pioche ; la défausse commence vide. Le donneur joue en premier.",
          "Valeur des cartes : du 2 au 10, 5 points ; valet, dame et roi, 10 ; l'as, 15."
        ]
      },
      {
        "id": "melds",
        "title": "Suites et brelans",
        "text": [
          "Une suite, ce sont trois cartes ou plus de la même couleur qui se suivent : des cartes de 2 à 10, ou valet-dame-roi. Le 10 ne touche pas le valet, et l'as n'entre jamais dans une suite.",
          "Un brelan ou un carré, ce sont trois ou quatre cartes de même valeur. Les as peuvent en former un.",
          "On ne peut poser un brelan qu'après avoir posé une suite."
        ],
        "figures": {
          "sequence": "Une suite : 5, 6, 7 et 8 de pique",
          "set": "Un brelan : trois as",
          "bad_ten": "Pas une suite : le 10 ne touche pas le valet",
          "bad_ace": "Pas une suite : l'as n'y entre jamais"
        }
      },
      {
        "id": "turn",
        "title": "Votre tour",
        "text": [
          "Piochez la carte du dessus de la pioche, ou prenez l'une des trois cartes du dessus de la défausse. Une carte prise dans la défausse est posée aussitôt dans une nouvelle combinaison avec au moins deux cartes de votre main ; les cartes au-dessus d'elle vont dans votre main.",
          "Posez ensuite autant de combinaisons que vous voulez et défaussez une carte. Les combinaisons posées ne changent jamais : on n'y ajoute rien."
        ]
      },
      {
        "id": "end",
        "title": "Fermer",
        "text": [
          "Quand toutes vos cartes sauf une entrent dans des combinaisons, posez-les toutes et défaussez la dernière : vous fermez et la donne est finie.",
          "La donne se termine aussi quand la pioche est vide et que le joueur dont c'est le tour ne peut rien prendre dans la défausse."
        ]
      },
      {
        "id": "scoring",
        "title": "Les points",
        "text": [
          "Tout le monde marque. Chaque carte d'une combinaison compte en plus, posée ou encore en main ; toutes les autres comptent en moins.",
          "Les brelans ne comptent que pour un joueur qui a une suite. Sans suite, leurs cartes comptent en moins.",
          "Celui qui ferme ajoute dix fois la valeur de sa dernière carte : 50 pour une carte numérotée, 100 pour une figure, 150 pour un as.",
          "Une partie dure 8 donnes et le plus gros total gagne. Le plus petit total donne ensuite."
        ]
      }
    ]
  },
  "nb": {
    "title": "Indonesisk remi",
    "intro": "Meld rekker og sett, og vær først til å lukke. Alle får poeng etter hver runde: kort i meldinger teller pluss, de andre minus.",
    "sections": [
      {
        "id": "deal",
        "title": "Utdelingen",
        "text": [
          "Én kortstokk med 52 kort, uten jokere, 2 til 4 spillere, 7 kort hver. Resten av kortstokken er trekkbunken; kastebunken er tom i starten. Giveren begynner.",
          "Kortverdier: 2 til 10 er verdt 5, knekt, dame og konge 10, ess 15."
        ]
      },
      {
        "id": "melds",
        "title": "Rekker og sett",
        "text": [
          "En rekke er tre eller flere kort i samme sort som følger hverandre: tallkort fra 2 til 10, eller knekt-dame-konge. 10 henger ikke sammen med knekten, og ess er aldri med i en rekke.",
          "Et sett er tre eller fire kort med samme verdi. Ess kan danne et sett.",
          "Du kan først melde et sett når du har en rekke på bordet."
        ],
        "figures": {
          "sequence": "En rekke: spar 5, 6, 7 og 8",
          "set": "Et sett: tre ess",
          "bad_ten": "Ikke en rekke: 10 henger ikke sammen med knekten",
          "bad_ace": "Ikke en rekke: ess er aldri med"
        }
      },
      {
        "id": "turn",
        "title": "Din tur",
        "text": [
          "Trekk det øverste kortet i trekkbunken, eller ta ett av de tre øverste kortene i kastebunken. Et kort fra kastebunken må meldes med en gang i en ny melding sammen med minst to kort fra hånden; kortene over det går til hånden din.",
          "Meld så mye du vil, og kast ett kort. Det som er meldt, endres aldri: man legger ikke til kort."
        ]
      },
      {
        "id": "end",
        "title": "Lukke",
        "text": [
          "Når alle kortene på hånden unntatt ett passer i meldinger, melder du alt og kaster det siste: du lukker, og runden er over.",
          "Runden slutter også når trekkbunken er tom og spilleren som står for tur ikke kan ta fra kastebunken."
        ]
      },
      {
        "id": "scoring",
        "title": "Poeng",
        "text": [
          "Alle får poeng. Hvert kort i en melding teller pluss, enten den ligger på bordet eller fortsatt er på hånden; alle andre kort teller minus.",
          "Sett teller bare for en spiller som har en rekke. Uten rekke teller kortene i settet minus.",
          "Den som lukker, får ti ganger verdien av det siste kortet: 50 for et tallkort, 100 for et bildekort, 150 for et ess.",
          "Et spill er 8 runder, og høyest sum vinner. Lavest sum gir neste runde."
        ]
      }
    ]
  },
  "sr": {
    "title": "Indonežanski remi",
    "intro": "Spuštaj nizove i grupe i budi prvi koji zatvara. Svi dobijaju bodove na kraju svakog deljenja: karte u kombinacijama se računaju u plus, ostale u minus.",
    "sections": [
      {
        "id": "deal",
        "title": "Deljenje",
        "text": [
          "Jedan špil od 52 karte, bez džokera, 2 do 4 igrača, svako po 7 karata. Ostatak je talon; gomila bačenih karata je na početku prazna. Prvi igra onaj koji deli.",
          "Vrednost karata: od 2 do 10 po 5, žandar, dama i kralj 10, kec 15."
        ]
      },
      {
        "id": "melds",
        "title": "Nizovi i grupe",
        "text": [
          "Niz su tri ili više karata iste boje koje idu redom: karte sa brojevima od 2 do 10, ili žandar-dama-kralj. Desetka se ne nastavlja na žandara, a kec nikad nije u nizu.",
          "Grupa su tri ili četiri karte iste vrednosti. I kečevi mogu da čine grupu.",
          "Grupu smeš da spustiš tek kad imaš niz na stolu."
        ],
        "figures": {
          "sequence": "Niz: pik 5, 6, 7 i 8",
          "set": "Grupa: tri keca",
          "bad_ten": "Nije niz: desetka se ne nastavlja na žandara",
          "bad_ace": "Nije niz: kec nikad nije u nizu"
        }
      },
      {
        "id": "turn",
        "title": "Tvoj potez",
        "text": [
          "Uzmi kartu sa vrha talona, ili jednu od tri gornje karte sa gomile bačenih. Kartu sa gomile odmah spuštaš u novu kombinaciju sa bar dve karte iz ruke; karte iznad nje idu tebi u ruku.",
          "Zatim spusti koliko god kombinacija hoćeš i baci jednu kartu. Kombinacije na stolu se nikad ne menjaju: ništa se ne dodaje."
        ]
      },
      {
        "id": "end",
        "title": "Zatvaranje",
        "text": [
          "Kad sve karte iz ruke osim jedne mogu u kombinacije, spusti ih sve i baci poslednju: zatvorio si i deljenje je gotovo.",
          "Deljenje se završava i kad se talon potroši, a igrač koji je na potezu ne može ništa da uzme sa gomile."
        ]
      },
      {
        "id": "scoring",
        "title": "Bodovi",
        "text": [
          "Bodove dobijaju svi. Svaka karta u kombinaciji se računa u plus, bila na stolu ili još u ruci; sve ostale karte idu u minus.",
          "Grupe se računaju samo igraču koji ima niz. Bez niza, karte iz grupe idu u minus.",
          "Ko zatvori, dodaje deset puta vrednost poslednje karte: 50 za kartu sa brojem, 100 za sliku, 150 za keca.",
          "Partija traje 8 deljenja i pobeđuje najveći zbir. Sledeće deljenje deli onaj sa najmanjim zbirom."
        ]
      }
    ]
  }
};
